#!/usr/bin/env python3
"""`make bench-scale`: notebook 04's Transformer grown towards the paper's base model, trained by
the crate (the bench example, `scale=`) and by PyTorch twice, on exactly the batches the crate
wrote, in one run on the same machine: the lecture's Transformer (the fixtures', made after the
same manual_seed and Xavier: the same initial weights), and torch.nn.Transformer, what a PyTorch
user picks past the lecture (fused multi-head attention, scaled_dot_product_attention), with the
same weights copied in (`nn_transformer`: its stacks built without the final LayerNorm the
lecture's model lacks; checked on the first batch to give the same logits). Each size's
speed-up is against the faster PyTorch side. Then the base model's greedy decoding (ours with the
KV cache, PyTorch's the lecture's whole-prefix decode, as `make bench` compares them).

Each side runs in its own process, so that its peak RSS (VmHWM, ru_maxrss) is its own; the sizes
run REPEATS times, alternating ours and PyTorch's, and the table gives medians and the range of
the speed-ups. GFLOP/s count 6 FLOPs a token per weight of the encoder's matrices (at the source
tokens) and the decoder's (at the target tokens; the cross-attention's key and value layers too),
the sentences' own tokens, embeddings left out, and 12 per query-key pair and model dimension in
every attention (its two products, forward and backward, at the padded lengths), against the FMA
probe's peak for the same threads.
The products column times the same batches' wide products alone (`bench products=`: every linear
layer's three products, on the padded batches, split and called as the training does, and nothing
else): their own GFLOP/s, and their time as a share of our training's. What the rest of our time
holds is the rest of a step: attention, layer norms, Adam, the copies, memory. The same run also
times the products with the padding rows left out (the real rows gathered into buffers of their
own and spread back, the copies inside the clock): scale.json's `padding_share` (of the products'
FLOPs) and `products_skipping_padding_time_share`, what skipping the padding could save at most.
The ceiling column adds to the products' time the passes over the parameters that no step with the
same numbers can skip, at the memory speed `bench passes=` measures (`examples/bench/floors.rs`):
Adam's (four floats read and three written a value) and, on two threads, the halves' weighted sum
(two read, one written), and the attentions' FLOPs at the full peak. It is the rate our training
cannot pass with these products, even if nothing else in a step took any time.

Usage: bench_scale.py BINARY OUT_DIR            (the whole table; writes OUT_DIR/scale.json)
       bench_scale.py torch PATH THREADS        (PyTorch's side of one training, one JSON line)
       bench_scale.py torch-nn PATH THREADS     (the same with torch.nn.Transformer, same weights)
       bench_scale.py torch-decode PATH         (PyTorch's greedy decoding, one JSON line)"""
import json
import os
import resource
import shutil
import subprocess
import sys
from statistics import median
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# d_model, heads, d_ff, layers, target tokens trained on, long sentences; and the threads.
SIZES = [
    ("64,4,128,2,320000", "notebook 04, the whole corpus", [2]),
    ("128,4,512,2,30000", "", [2]),
    ("256,8,1024,3,10000", "", [2, 1]),
    ("512,8,2048,6,4000", "base", [2, 1]),
    ("256,8,1024,3,8000,long", "sentences of 128-256 tokens", [2]),
]
DECODE = "512,8,2048,6"
REPEATS = max(1, int(os.environ.get("BENCH_REPEATS", "3")))


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def flops_of(cfg, model):
    """6 FLOPs per matrix weight and token (embeddings left out), 12 per query-key pair and
    model dimension in each attention, on the padded batches."""
    from bench import matrix_weights
    enc_w, dec_w = matrix_weights(model)
    total = attention_flops(cfg)
    for b in cfg["batches"]:
        total += 6 * (enc_w * sum(len(r) for r in b["src"]) + dec_w * sum(len(r) - 1 for r in b["tgt"]))
    return total


def attention_flops(cfg):
    """The attentions' part of `flops_of`: 12 per query-key pair and model dimension, padded."""
    d, layers, total = cfg["d_model"], cfg["n_layers"], 0
    for b in cfg["batches"]:
        s, t = max(len(r) for r in b["src"]), max(len(r) - 1 for r in b["tgt"])
        total += 12 * d * layers * len(b["src"]) * (s * s + t * t + t * s)
    return total


def torch_train(path, threads):
    import torch
    from bench import train_translation, translator  # sets one thread on import
    torch.set_num_threads(threads)
    with open(path) as f:
        cfg = json.load(f)
    secs, tokens, loss, _ = train_translation(path)
    model, _ = translator(cfg)
    params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"seconds": secs, "tokens": tokens, "loss": loss, "parameters": params, "flops": flops_of(cfg, model),
                      "peak_rss_mib": peak_rss_mib()}))


def nn_transformer(cfg):
    """torch.nn.Transformer, what a PyTorch user picks past the lecture (fused multi-head attention,
    scaled_dot_product_attention), with every weight copied from the fixtures' model made after the
    same manual_seed and Xavier: the same function from the same weights. batch_first, post-norm
    and ReLU as ours, dropout 0 as the bench's. nn.Transformer ends each stack with a LayerNorm that
    ours (the lecture's) lacks; its stacks are built without one (custom_encoder/custom_decoder
    with norm=None). Its embeddings, positional encodings and output layer are the fixtures'
    modules themselves. Returns (model, logits function) as `bench.translator` does, and the
    fixtures' model it copied (for the check that both give the same logits)."""
    import torch
    from torch import nn
    from bench import translator
    ref, _ = translator(cfg)
    d, h, ff, n = cfg["d_model"], cfg["n_heads"], cfg["d_ff"], cfg["n_layers"]
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True), n, norm=None,
                                enable_nested_tensor=False)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(d, h, ff, dropout=0.0, batch_first=True), n, norm=None)
    core = nn.Transformer(d, h, custom_encoder=enc, custom_decoder=dec, dropout=0.0, batch_first=True)

    def attention(theirs, ours):  # the vectorised heads' query, key, value and output layers
        theirs.in_proj_weight.copy_(torch.cat([ours.query.weight, ours.key.weight, ours.value.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.query.bias, ours.key.bias, ours.value.bias]))
        theirs.out_proj.weight.copy_(ours.output.weight)
        theirs.out_proj.bias.copy_(ours.output.bias)

    def copy(theirs, ours):
        theirs.weight.copy_(ours.weight)
        theirs.bias.copy_(ours.bias)

    with torch.no_grad():
        for theirs, ours in zip(core.encoder.layers, ref.encoder.layers):
            attention(theirs.self_attn, ours.MHA)
            copy(theirs.linear1, ours.PFFN.pffn[0]), copy(theirs.linear2, ours.PFFN.pffn[3])
            copy(theirs.norm1, ours.addNorm1.layer_norm), copy(theirs.norm2, ours.addNorm2.layer_norm)
        for theirs, ours in zip(core.decoder.layers, ref.decoder.layers):
            attention(theirs.self_attn, ours.masked_MHA), attention(theirs.multihead_attn, ours.cross_MHA)
            copy(theirs.linear1, ours.PFFN.pffn[0]), copy(theirs.linear2, ours.PFFN.pffn[3])
            for k, norm in enumerate([ours.addNorm1, ours.addNorm2, ours.addNorm3], 1):
                copy(getattr(theirs, f"norm{k}"), norm.layer_norm)

    class NnTranslator(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_embedding, self.src_pe, self.tgt_embedding, self.tgt_pe = ref.src_embedding, ref.src_pe, ref.tgt_embedding, ref.tgt_pe
            self.core, self.linear = core, ref.linear

        def forward(self, src, tgt):
            t = tgt.size(1)
            causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)  # True: may not look
            out = self.core(self.src_pe(self.src_embedding(src)), self.tgt_pe(self.tgt_embedding(tgt)), tgt_mask=causal,
                            src_key_padding_mask=src == 0, tgt_key_padding_mask=tgt == 0, memory_key_padding_mask=src == 0)
            return self.linear(out)

    model = NnTranslator()
    return model, model, ref


def torch_nn_train(path, threads):
    """PyTorch's nn.Transformer side of one training: first checks on the first batch that it is
    the same function as the fixtures' model (its logits within 1e-4), then trains as `torch`."""
    import torch
    from bench import train_translation
    torch.set_num_threads(threads)
    with open(path) as f:
        cfg = json.load(f)
    model, _, ref = nn_transformer(cfg)
    pad = lambda rows: torch.nn.utils.rnn.pad_sequence([torch.tensor(r) for r in rows], batch_first=True)  # noqa: E731
    src, tgt = pad(cfg["batches"][0]["src"]), pad(cfg["batches"][0]["tgt"])[:, :-1]
    with torch.no_grad():
        diff = (model(src, tgt) - ref(src, tgt)).abs().max().item()
    if not diff < 1e-4:
        raise SystemExit(f"nn.Transformer is not the fixtures' model: logits differ by {diff}")
    secs, tokens, loss, _ = train_translation(path, make=lambda c: nn_transformer(c)[:2])
    print(json.dumps({"seconds": secs, "tokens": tokens, "loss": loss, "same_logits_max_diff": diff, "peak_rss_mib": peak_rss_mib()}))


def torch_decode(path):
    import torch
    from bench import translator  # the crate's initial weights: manual_seed, then Xavier
    from bench_decoding import TransformerSteps, greedy, padded
    torch.set_num_threads(1)
    with open(path) as f:
        cfg = json.load(f)
    model, _ = translator(cfg)
    model.eval()
    src = padded(cfg["test_src"])
    start = time.perf_counter()
    with torch.no_grad():
        outputs = greedy(TransformerSteps(model), src, cfg["decode_max_len"])
    secs = time.perf_counter() - start
    tokens = sum(len(o) + (len(o) < cfg["decode_max_len"]) for o in outputs)
    same = sum(a == b for a, b in zip(outputs, cfg["greedy"]))
    print(json.dumps({"seconds": secs, "tokens": tokens, "same": same, "sentences": len(outputs), "peak_rss_mib": peak_rss_mib()}))


# Where our time goes, by symbol: perf's samples of the training call (`train_window`, on the
# CLOCK_MONOTONIC clock), not of the set-up before it (corpus, initial weights, Adam's state).
BUCKETS = [
    ("gemm microkernels", lambda s: "gemm_f32::microkernel" in s),
    ("gemm packing and dispatch", lambda s: "gemm_common" in s or "gemm_f32" in s or "gemm::" in s),
    ("kernel: page faults, zeroing, TLB", lambda s: s.startswith("[k]")),
    ("memset and memmove", lambda s: "memset" in s or "memmove" in s or "memcpy" in s),
    ("Adam (in place)", lambda s: "in_place::Update" in s or "optim" in s),
    ("candle element-wise and copies", lambda s: "candle_core::cpu_backend" in s or "candle_core::" in s),
    ("our fused kernels (layer norm, softmax, heads, ...)", lambda s: "attention_zoo::nn::fused" in s),
    ("allocator", lambda s: "malloc" in s or "free" in s or "_int_" in s or "sysmalloc" in s),
    ("batches and random numbers (dropout)", lambda s: "attention_zoo::data" in s or "attention_zoo::repro" in s),
]


def profile(binary, spec, threads, env):
    """Our side of one size under `perf record`: the share of the training call's samples in each
    bucket."""
    with tempfile.TemporaryDirectory() as tmp:
        data, path = os.path.join(tmp, "perf.data"), os.path.join(tmp, "batches.json")
        start, end = run_json(["perf", "record", "-q", "-k", "mono", "-F", "999", "-o", data, binary, f"scale={spec}:{path}"],
                              dict(env, BENCH_THREADS=str(threads)))["train_window"]
        report = subprocess.run(["perf", "report", "-i", data, "--time", f"{start:.6f},{end:.6f}", "--no-children",
                                 "--sort", "symbol", "--stdio"], check=True, capture_output=True, text=True).stdout
    shares = {name: 0.0 for name, _ in BUCKETS}
    shares["other"] = 0.0
    for line in report.splitlines():
        parts = line.split(None, 1)
        if len(parts) < 2 or not parts[0].endswith("%"):
            continue
        pct, sym = float(parts[0][:-1]), parts[1].strip()
        shares[next((name for name, test in BUCKETS if test(sym)), "other")] += pct
    return shares


def run_json(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(binary, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    py = sys.executable
    me = os.path.abspath(__file__)
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    # Two threads' probe at one thread's rate means a core was taken while it ran (once here, on a
    # VM: 259 GFLOP/s against 255 on one, and every share of the peak in that run doubled): probe
    # again, and stop rather than print shares of a wrong peak.
    for _ in range(5):
        probes = {t: run_json([binary, f"peak={t}"], env) for t in (1, 2)}
        if (os.cpu_count() or 1) < 2 or probes[2]["peak_gflops"] >= 1.6 * probes[1]["peak_gflops"]:
            break
        time.sleep(5)
    else:
        raise SystemExit(f"bench_scale: the FMA probe gave {probes[2]['peak_gflops']:.0f} GFLOP/s on two threads against "
                         f"{probes[1]['peak_gflops']:.0f} on one, five times: the second core is busy; run it on an idle machine")
    peaks, vector = {t: p["peak_gflops"] for t, p in probes.items()}, probes[1]["vector"]
    from cpu_class import cpu_class
    cpu_info, cpu = cpu_class(probes[1])
    print(f"{cpu}, {os.cpu_count()} cores; FMA probe on its widest vectors: {peaks[2]:.0f} GFLOP/s on 2 threads, "
          f"{peaks[1]:.0f} on one; {REPEATS} runs a side, alternating")
    print(f"{'size (d, heads, d_ff, layers)':<32}{'thr':>4}{'params':>9}{'tokens':>8}{'lecture/nn tok/s':>17}{'ours tok/s':>11}"
          f"{'speed-up':>9}{'range':>12}{'PyTorch GFLOP/s':>18}{'ours GFLOP/s':>15}{'RSS lecture/nn/ours MiB':>26}   loss lecture | nn | ours")
    print("(PyTorch: the lecture's Transformer and torch.nn.Transformer from the same weights; the speed-up is against the faster of the two, run by run)")
    rows = []
    for spec, label, thread_list in SIZES:
        for threads in thread_list:
            runs = []
            for _ in range(REPEATS):
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "batches.json")
                    ours = run_json([binary, f"scale={spec}:{path}"], dict(env, BENCH_THREADS=str(threads)))
                    theirs = run_json([py, me, "torch", path, str(threads)], env)
                    nn_side = run_json([py, me, "torch-nn", path, str(threads)], env)
                    if not runs:  # the same batches' wide products alone, on as many threads
                        alone = run_json([binary, f"products={threads}:{path}"], env)
                        # the passes over the parameters no step of the same numbers can skip
                        # (Adam's; the halves' sum on two threads), at this machine's memory speed
                        passes = run_json([binary, f"passes={threads}:{ours['parameters']}"], env)
                        with open(path) as f:
                            cfg = json.load(f)
                        steps = len(cfg["batches"])
                        floors = steps * (passes["seconds"] + (passes["halves_sum_seconds"] if threads > 1 else 0.0))
                        # the attentions' FLOPs, which the products alone leave out, at the full peak
                        attention_at_peak = attention_flops(cfg) / (peaks[threads] * 1e9)
                runs.append((ours, theirs, nn_side))
            rate = lambda r: r["tokens"] / r["seconds"]  # noqa: E731
            o_rate, l_rate, n_rate = (median([rate(r[k]) for r in runs]) for k in range(3))
            # against the faster PyTorch side, run by run
            ratios = sorted(rate(o) / max(rate(t), rate(n)) for o, t, n in runs)
            t_rate = max(l_rate, n_rate)
            o, t, nn_run = runs[0]
            flops_per_token = t["flops"] / t["tokens"]
            ours_seconds = median([o["seconds"] for o, _, _ in runs])
            row = {
                "size": spec, "label": label, "threads": threads, "parameters": o["parameters"], "tokens": o["tokens"],
                "lecture_tok_s": l_rate, "nn_tok_s": n_rate, "torch_tok_s": t_rate, "faster_torch": "nn.Transformer" if n_rate > l_rate else "lecture",
                "ours_tok_s": o_rate, "speedup": o_rate / t_rate, "range": [ratios[0], ratios[-1]],
                "torch_gflops": flops_per_token * t_rate / 1e9, "ours_gflops": flops_per_token * o_rate / 1e9, "peak_gflops": peaks[threads],
                "lecture_rss_mib": median([t["peak_rss_mib"] for _, t, _ in runs]), "nn_rss_mib": median([n["peak_rss_mib"] for _, _, n in runs]),
                "ours_rss_mib": median([o["peak_rss_mib"] for o, _, _ in runs]),
                "torch_loss": t["loss"], "nn_loss": nn_run["loss"], "ours_loss": o["loss"], "nn_same_logits_max_diff": nn_run["same_logits_max_diff"],
                "ours_page_faults": median([o["page_faults"] for o, _, _ in runs]),
                # the same batches' wide products alone: their own rate (their FLOPs, on the padded
                # batches), and their time as a share of our training's
                "products_alone_gflops": alone["gflops"], "products_time_share": alone["seconds"] / ours_seconds,
                # the same with the padding rows left out, the gathers and spreads included
                "padding_share": alone["padding_share"],
                "products_skipping_padding_time_share": alone["skipping_seconds"] / ours_seconds,
                # the rate our training cannot pass with these products, even if nothing but
                # them, the floors of the passes over the parameters and the attentions' FLOPs
                # at the full peak took any time
                "steps": steps, "memory_gb_s": passes["gb_s"], "floors_seconds": floors, "attention_at_peak_seconds": attention_at_peak,
                "ceiling_gflops": t["flops"] / (alone["seconds"] + floors + attention_at_peak) / 1e9,
            }
            row["torch_rss_mib"] = min(row["lecture_rss_mib"], row["nn_rss_mib"])
            rows.append(row)
            share = lambda g: f"{g:.1f} ({100 * g / peaks[threads]:.0f}%)"  # noqa: E731
            print(f"{spec + (' ' + label if label else ''):<32}{threads:>4}{o['parameters'] / 1e6:>8.2f}M{o['tokens']:>8}{l_rate:>9.0f}/{n_rate:<7.0f}{o_rate:>11.0f}"
                  f"{o_rate / t_rate:>8.2f}x{ratios[0]:>6.2f}-{ratios[-1]:.2f}x{share(row['torch_gflops']):>18}{share(row['ours_gflops']):>15}"
                  f"{row['lecture_rss_mib']:>8.0f} /{row['nn_rss_mib']:>6.0f} / {row['ours_rss_mib']:<8.0f}"
                  f"   {t['loss']:.4f} | {nn_run['loss']:.4f} | {o['loss']:.4f}   products alone {share(row['products_alone_gflops'])}, {100 * row['products_time_share']:.0f}% of our time"
                  f" ({100 * row['products_skipping_padding_time_share']:.0f}% with the padding's {100 * row['padding_share']:.1f}% left out);"
                  f" ceiling {share(row['ceiling_gflops'])} (the products alone, {steps} steps' passes over the parameters at"
                  f" {passes['gb_s']:.0f} GB/s and the attentions at the peak: {floors + attention_at_peak:.2f} s)", flush=True)
    profiles = {}
    if os.environ.get("BENCH_PROFILE", "1") != "0" and shutil.which("perf"):
        print("\nwhere our time goes (perf, the training call alone, 2 threads): % of samples")
        names = [name for name, _ in BUCKETS] + ["other"]
        for spec, _, _ in SIZES:
            profiles[spec] = profile(binary, spec, 2, env)
        heads = [",".join(spec.split(",")[:4]) + (" long" if spec.endswith("long") else "") for spec, _, _ in SIZES]
        print(f"{'':<52}" + "".join(f"{h:>20}" for h in heads))
        for name in names:
            print(f"{name:<52}" + "".join(f"{profiles[spec][name]:>19.1f}%" for spec, _, _ in SIZES))
    runs = []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "decode.json")
            ours = run_json([binary, f"scale-decode={DECODE}:{path}"], env)
            theirs = run_json([py, me, "torch-decode", path], env)
        runs.append((ours, theirs))
    o_rate = median([o["tokens"] / o["seconds"] for o, _ in runs])
    t_rate = median([t["tokens"] / t["seconds"] for _, t in runs])
    ratios = sorted((o["tokens"] / o["seconds"]) / (t["tokens"] / t["seconds"]) for o, t in runs)
    same = min(t["same"] for _, t in runs)
    decode = {"size": DECODE, "sentences": runs[0][1]["sentences"], "tokens": runs[0][0]["tokens"], "torch_tok_s": t_rate, "ours_tok_s": o_rate,
              "speedup": o_rate / t_rate, "range": [ratios[0], ratios[-1]], "same": same,
              "torch_rss_mib": median([t["peak_rss_mib"] for _, t in runs]), "ours_rss_mib": median([o["peak_rss_mib"] for o, _ in runs])}
    print(f"\nbase model ({DECODE}), greedy decoding of {decode['sentences']} test sentences in one batch, one thread each, initial weights "
          f"(ours with the KV cache, PyTorch the whole prefix each step): {decode['tokens']} tokens, PyTorch {t_rate:.0f} tok/s, "
          f"ours {o_rate:.0f} tok/s, {o_rate / t_rate:.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x), same translations {same} of "
          f"{decode['sentences']}, RSS {decode['torch_rss_mib']:.0f} / {decode['ours_rss_mib']:.0f} MiB")
    result = {"date": time.strftime("%Y-%m-%d"), "cpu": cpu, "cpu_class": cpu_info, "vector": vector, "cores": os.cpu_count(), "peak_gflops": peaks, "repeats": REPEATS,
              "rows": rows, "decode": decode, "profiles": profiles}
    path = os.path.join(out_dir, "scale.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(f"\nwrote {path}")
    print(f"\n{cpu}, {time.strftime('%Y-%m-%d')}:")
    print("\n| d_model, heads, d_ff, layers | threads | parameters | PyTorch tok/s: lecture / nn.Transformer | ours tok/s | speed-up against the faster (range) | GFLOP/s faster PyTorch / ours (share of peak) | the wide products alone: GFLOP/s (share of peak), share of our time | ceiling: the products alone, the passes over the parameters at memory speed and the attentions at the peak, GFLOP/s (share of peak) | peak RSS lecture / nn / ours |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        size = ", ".join(r["size"].split(",")[:4]) + (" (" + r["label"] + ")" if r["label"] else "")
        pk = r["peak_gflops"]
        print(f"| {size} | {r['threads']} | {r['parameters'] / 1e6:.2f} M | {r['lecture_tok_s']:,.0f} / {r['nn_tok_s']:,.0f} | {r['ours_tok_s']:,.0f} | "
              f"{r['speedup']:.2f}x ({r['range'][0]:.2f}-{r['range'][1]:.2f}) | {r['torch_gflops']:.1f} ({100 * r['torch_gflops'] / pk:.0f}%) / "
              f"{r['ours_gflops']:.1f} ({100 * r['ours_gflops'] / pk:.0f}%) | {r['products_alone_gflops']:.1f} ({100 * r['products_alone_gflops'] / pk:.0f}%), {100 * r['products_time_share']:.0f}% | {r['ceiling_gflops']:.1f} ({100 * r['ceiling_gflops'] / pk:.0f}%) | {r['lecture_rss_mib']:,.0f} / {r['nn_rss_mib']:,.0f} / {r['ours_rss_mib']:,.0f} MiB |")


if __name__ == "__main__":
    if sys.argv[1] == "torch":
        torch_train(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "torch-nn":
        torch_nn_train(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "torch-decode":
        torch_decode(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2])
