#!/usr/bin/env python3
"""`make bench`: the lecture's trainings in PyTorch (the models of tools/fixtures/, one thread)
and in this crate (the bench example, one thread), on the same machine, in one run.

Usage: bench.py PATH_TO_RUST_BENCH_BINARY"""
import json
import os
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures.attention import DecoderAttn, EncoderDecoderAttn  # noqa: E402
from fixtures.selfattn import DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn  # noqa: E402
from fixtures.seq2seq import Decoder, Encoder, EncoderDecoder  # noqa: E402
from fixtures.training import fit, loaders  # noqa: E402

torch.set_num_threads(1)


def train_lecture(make, seed=23):
    train_loader, test_loader = loaders()
    torch.manual_seed(seed)
    model = make()
    start = time.perf_counter()
    losses, val = fit(model, train_loader, test_loader, 100)
    return time.perf_counter() - start, losses[-1], val[-1]


TORCH = {
    "seq2seq": lambda: train_lecture(lambda: EncoderDecoder(Encoder(2, 2), Decoder(2, 2), 2, 2, 0.5)),
    "attention": lambda: train_lecture(lambda: EncoderDecoderAttn(Encoder(2, 2), DecoderAttn(2, 2), 2, 2, 0.5)),
    "selfattn": lambda: train_lecture(lambda: EncoderDecoderSelfAttn(EncoderSelfAttn(3, 2, 10, 2), DecoderSelfAttn(3, 2, 10, 2), 2, 2)),
    "selfattn_pe": lambda: train_lecture(
        lambda: EncoderDecoderSelfAttn(EncoderPe(3, 2, 10, 2, 100), DecoderPe(3, 2, 10, 2, 100), 2, 2),
        seed=43,
    ),
}


def main(binary):
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    out = subprocess.run([binary], env=env, check=True, capture_output=True, text=True).stdout
    ours = {r["model"]: r for r in map(json.loads, out.strip().splitlines())}
    print(f"{'model':<12}{'PyTorch s':>11}{'ours s':>9}{'speed-up':>10}   final losses (PyTorch | ours)")
    for name, fn in TORCH.items():
        secs, loss, val = fn()
        r = ours[name]
        print(f"{name:<12}{secs:>11.3f}{r['seconds']:>9.3f}{secs / r['seconds']:>9.1f}x   "
              f"{loss:.6f}/{val:.6f} | {r['loss']:.6f}/{r['val_loss']:.6f}")


if __name__ == "__main__":
    main(sys.argv[1])
