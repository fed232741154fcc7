#!/usr/bin/env python3
"""`make bench`: the lecture's trainings in PyTorch (the models of tools/fixtures/, one thread)
and in this crate (the bench example, one thread), on the same machine, in one run; then one
epoch of notebook 04's translator on the generated corpus, both on two threads, on exactly the
batches the crate wrote (the same initial weights too: manual_seed, then Xavier).

Usage: bench.py PATH_TO_RUST_BENCH_BINARY"""
import json
import os
import tempfile
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures.attention import DecoderAttn, EncoderDecoderAttn  # noqa: E402
from fixtures.selfattn import DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn  # noqa: E402
from fixtures.seq2seq import Decoder, Encoder, EncoderDecoder  # noqa: E402
from fixtures.training import fit, loaders  # noqa: E402
from fixtures.transformer import Transformer, xavier_uniform  # noqa: E402
import torch.nn.functional as F  # noqa: E402

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


def train_translation(path):
    """One epoch of the translator in PyTorch on the batches in `path`: (seconds, tokens, mean loss)."""
    with open(path) as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    model = Transformer(cfg["src_vocab"], cfg["tgt_vocab"], cfg["d_model"], cfg["n_heads"], cfg["d_ff"], cfg["n_layers"], 0.0,
                        cfg["max_len"], heads="vectorised")
    xavier_uniform(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    d, warmup, factor = cfg["d_model"], cfg["warmup"], cfg["factor"]
    pad = lambda rows: torch.nn.utils.rnn.pad_sequence([torch.tensor(r) for r in rows], batch_first=True)  # noqa: E731
    batches = [(pad(b["src"]), pad(b["tgt"])) for b in cfg["batches"]]
    model.train()
    start, tokens, total = time.perf_counter(), 0, 0.0
    for step, (src, tgt) in enumerate(batches, 1):
        for group in opt.param_groups:
            group["lr"] = factor * d ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
        logits = model(src, tgt[:, :-1])
        target = tgt[:, 1:]
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tokens += int((target != 0).sum())
        total += loss.item()
    return time.perf_counter() - start, tokens, total / len(batches)


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

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "batches.json")
        # Ours: two half-batches at once, one thread each (StepByStep::threads = 2), candle's own
        # thread pool left at one thread so that the two threads are all there is.
        env2 = dict(os.environ, RAYON_NUM_THREADS="1")
        out = subprocess.run([binary, f"translation={path}"], env=env2, check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        torch.set_num_threads(2)
        secs, tokens, loss = train_translation(path)
    ours, theirs = r["tokens"] / r["seconds"], tokens / secs
    print(f"\ntranslation, one epoch of notebook 04 ({tokens} target tokens, two threads each):")
    print(f"{'':<12}{'tokens/s':>10}{'seconds':>9}{'mean loss':>11}")
    print(f"{'PyTorch':<12}{theirs:>10.0f}{secs:>9.1f}{loss:>11.4f}")
    print(f"{'ours':<12}{ours:>10.0f}{r['seconds']:>9.1f}{r['loss']:>11.4f}")
    print(f"speed-up {ours / theirs:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1])
