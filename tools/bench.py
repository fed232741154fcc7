#!/usr/bin/env python3
"""`make bench`: the lecture's trainings in PyTorch (the models of tools/fixtures/, one thread)
and in this crate (the bench example, one thread), on the same machine, in one run; then one
epoch of each translator on the generated corpus (notebook 04's Transformer, notebook 05's GRU,
LSTM and biLSTM translators), both on two threads, on exactly the batches the crate wrote and
from the same initial weights (manual_seed; then Xavier for the Transformer). Each line gives
tokens/s, the speed-up and the achieved GFLOP/s (about 6 FLOPs per weight of a matrix a token
goes through, embeddings left out) as a share of the machine's peak, which the crate's FMA probe
measures in the same run. Last, the test split decoded greedily and by beam search (width 4) with
each translator's trained weights, in PyTorch (tools/bench_decoding.py) and in the crate.

Usage: bench.py PATH_TO_RUST_BENCH_BINARY"""
import json
import os
import tempfile
import subprocess
import sys
from statistics import median
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures.attention import DecoderAttn, EncoderDecoderAttn  # noqa: E402
from fixtures.selfattn import DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn  # noqa: E402
from fixtures.seq2seq import Decoder, Encoder, EncoderDecoder  # noqa: E402
from fixtures.training import fit, loaders  # noqa: E402
from fixtures.transformer import Transformer, xavier_uniform  # noqa: E402
from fixtures import gru_translation, lstm_translation  # noqa: E402
from bench_decoding import decode_test  # noqa: E402
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


def translator(cfg):
    """PyTorch's model for the bench's settings, made right after manual_seed as the crate's is;
    and a function from (src, tgt_in) to the logits."""
    torch.manual_seed(cfg["seed"])
    kind = cfg["kind"]
    if kind == "transformer":
        model = Transformer(cfg["src_vocab"], cfg["tgt_vocab"], cfg["d_model"], cfg["n_heads"], cfg["d_ff"], cfg["n_layers"], 0.0,
                            cfg["max_len"], heads="vectorised")
        xavier_uniform(model)
        return model, model
    sizes = (cfg["src_vocab"], cfg["tgt_vocab"], cfg["embed_dim"], cfg["hidden_dim"])
    if kind == "gru":
        model = gru_translation.Translator(*sizes)
        return model, model
    model = lstm_translation.Translator(kind == "bilstm", *sizes)
    return model, lambda src, tgt_in: model(src, tgt_in)[0]


def matrix_weights(model):
    """Weights of the matrices a source token and a target token go through (embeddings left
    out): about 6 FLOPs each per token, forward and backward."""
    enc = sum(p.numel() for n, p in model.named_parameters() if n.startswith("encoder.") and "embed" not in n)
    dec = sum(p.numel() for n, p in model.named_parameters() if not n.startswith("encoder.") and "embed" not in n)
    return enc, dec


def decode_translation(cfg, decode_path):
    """Greedy and beam-4 decoding of the test split in PyTorch, one thread, with the weights the
    crate trained (in `decode_path`, named as the `state_dict`): ((seconds, tokens, outputs),
    (seconds, tokens, outputs)), and the crate's outputs."""
    with open(decode_path) as f:
        dec = json.load(f)
    model, _ = translator(cfg)
    weights = {name: torch.tensor(w["values"], dtype=torch.float32).reshape(w["shape"]) for name, w in dec["weights"].items()}
    # Every parameter; the positional encodings' tables are buffers, the same on both sides.
    missing, unexpected = model.load_state_dict(weights, strict=False)
    assert not unexpected and all(k.endswith("_pe.pe") for k in missing), (missing, unexpected)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return decode_test(cfg["kind"], model, dec), (dec["greedy"], dec["beam"])
    finally:
        torch.set_num_threads(threads)


def train_translation(path, make=None):
    """One epoch of a translator in PyTorch on the batches in `path`: (seconds, target tokens,
    mean loss, FLOPs). `make(cfg)` gives the model and its logits function (default: the fixtures'
    model, `translator`)."""
    with open(path) as f:
        cfg = json.load(f)
    model, logits_of = (make or translator)(cfg)
    transformer = cfg["kind"] == "transformer"
    if transformer:
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    d, warmup, factor = cfg["d_model"], cfg["warmup"], cfg["factor"]
    pad = lambda rows: torch.nn.utils.rnn.pad_sequence([torch.tensor(r) for r in rows], batch_first=True)  # noqa: E731
    batches = [(pad(b["src"]), pad(b["tgt"])) for b in cfg["batches"]]
    enc_w, dec_w = matrix_weights(model)
    flops = sum(6 * (enc_w * int((src != 0).sum()) + dec_w * int((tgt[:, 1:] != 0).sum())) for src, tgt in batches)
    model.train()
    start, tokens, total = time.perf_counter(), 0, 0.0
    for step, (src, tgt) in enumerate(batches, 1):
        if transformer:
            for group in opt.param_groups:
                group["lr"] = factor * d ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
        logits = logits_of(src, tgt[:, :-1])
        target = tgt[:, 1:]
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        if not transformer:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
        opt.step()
        tokens += int((target != 0).sum())
        total += loss.item()
    return time.perf_counter() - start, tokens, total / len(batches), flops


# notebook 04's Transformer, notebook 05's recurrent translators
TRANSLATORS = ["transformer", "gru", "lstm", "bilstm"]
# Each translator's training and decoding runs this many times on each side, alternating: this
# machine's speed varies by up to a quarter from one minute to the next, so one run of each is
# not a measurement (BENCH_REPEATS=1 for a quick look).
REPEATS = max(1, int(os.environ.get("BENCH_REPEATS", "3")))


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

    env1 = dict(os.environ, RAYON_NUM_THREADS="1")
    probe = json.loads(subprocess.run([binary, "peak=2"], env=env1, check=True, capture_output=True, text=True).stdout)
    peak = probe["peak_gflops"]
    from cpu_class import cpu_class
    _, cpu = cpu_class(json.loads(subprocess.run([binary, "peak=1"], env=env1, check=True, capture_output=True, text=True).stdout))
    torch.set_num_threads(2)
    print(f"\ntranslators, one epoch each on the generated corpus, two threads each; {cpu}; peak {peak:.0f} GFLOP/s "
          f"(FMA probe, 2 threads, {probe['vector']});"
          f"\neach side run {REPEATS} times, alternating: medians, and the range of the {REPEATS} speed-ups")
    print(f"{'model':<12}{'tokens':>8}{'PyTorch tok/s':>15}{'ours tok/s':>12}{'speed-up':>10}{'range':>14}{'PyTorch GFLOP/s':>17}{'ours GFLOP/s':>14}"
          f"   mean loss (PyTorch | ours)")
    decoding = []
    for kind in TRANSLATORS:
        runs = []
        for _ in range(REPEATS):
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "batches.json")
                # Ours: two half-batches at once, one thread each (StepByStep::threads = 2), candle's
                # own thread pool left at one thread so that the two threads are all there is.
                out = subprocess.run([binary, f"translation={kind}:{path}"], env=env1, check=True, capture_output=True, text=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                secs, tokens, loss, flops = train_translation(path)
                with open(path) as f:
                    cfg = json.load(f)
                runs.append((r, secs, tokens, loss, flops, *decode_translation(cfg, path + ".decode.json")))
        decoding.append((kind, runs))
        r, _, tokens, loss, flops = runs[0][:5]
        ours = median([x[0]["tokens"] / x[0]["seconds"] for x in runs])
        theirs = median([x[2] / x[1] for x in runs])
        ratios = sorted((x[0]["tokens"] / x[0]["seconds"]) / (x[2] / x[1]) for x in runs)
        g_ours, g_theirs = flops / (tokens / ours) / 1e9, flops / (tokens / theirs) / 1e9
        print(f"{kind:<12}{tokens:>8}{theirs:>15.0f}{ours:>12.0f}{ours / theirs:>9.2f}x{ratios[0]:>7.2f}-{ratios[-1]:.2f}x"
              f"{g_theirs:>10.1f} ({100 * g_theirs / peak:2.0f}%){g_ours:>7.1f} ({100 * g_ours / peak:2.0f}%)   {loss:.4f} | {r['loss']:.4f}")

    print("\ndecoding the 1,000 test sentences with the trained weights, batches of 100, one thread each"
          " (tokens: of the translations, <eos> included; medians, and the range of the speed-ups;"
          " same translations: the fewest over the repetitions)")
    print(f"{'model':<12}{'search':<8}{'tokens':>8}{'PyTorch tok/s':>15}{'ours tok/s':>12}{'speed-up':>10}{'range':>14}   same translations")
    for kind, runs in decoding:
        for search, k in [("greedy", 0), ("beam-4", 1)]:
            key = "greedy" if k == 0 else "beam"
            ours_rates = [x[0][f"{key}_tokens"] / x[0][f"{key}_seconds"] for x in runs]
            theirs_rates = [x[5][k][1] / x[5][k][0] for x in runs]
            ratios = sorted(a / b for a, b in zip(ours_rates, theirs_rates))
            same = min(sum(a == b for a, b in zip(x[5][k][2], x[6][k])) for x in runs)
            ours, theirs = median(ours_rates), median(theirs_rates)
            print(f"{kind:<12}{search:<8}{runs[0][0][f'{key}_tokens']:>8}{theirs:>15.0f}{ours:>12.0f}{ours / theirs:>9.2f}x"
                  f"{ratios[0]:>7.2f}-{ratios[-1]:.2f}x   {same} of {len(runs[0][6][k])}")


if __name__ == "__main__":
    main(sys.argv[1])
