"""Greedy decoding and beam search in PyTorch for `make bench` (tools/bench.py): the test split
decoded with the weights the crate trained (read from the JSON the bench example writes), by the
same algorithms as the crate's `greedy_decode` and `beam_search`, so that both give the same
translations and the seconds compare the implementations.

- Greedy: every sentence of a batch from `<sos>`, the largest logit appended (the first on ties),
  a sentence leaving the batch once it gives `<eos>`, at most `max_len` tokens.
- Beam search: all sentences' live beams as rows of one batch; each beam extended by every token,
  the candidates ranked by summed log-probability (float64; ties: the earlier beam, then the smaller
  id); an `<eos>` among the first `width` finishes a hypothesis, the others fill the next beams;
  a sentence stops once `width` hypotheses have finished; the best by score is kept.
- How a model gives the next logits is what its PyTorch class offers: the Transformer decodes the
  whole prefix at every step (the lecture's `decode`, no cache); the GRU and LSTM translators carry
  their hidden state from step to step."""
import time

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from fixtures.transformer import create_mask, padding_mask

SOS, EOS, PAD = 1, 2, 0


class TransformerSteps:
    """Next logits of the Transformer: the whole prefix through the decoder (no cache)."""

    def __init__(self, model):
        self.model = model

    def start(self, src):
        src_mask = padding_mask(src)
        return {"memory": self.model.encode(src, src_mask), "src_mask": src_mask}

    def next(self, state, prefix):
        tgt_mask = create_mask(prefix.size(0), prefix.size(1)) + padding_mask(prefix)
        return self.model.decode(prefix, state["memory"], state["src_mask"], tgt_mask)[:, -1], state


class GruSteps:
    """Next logits of the GRU translator: its decoder reads the last token from the carried hidden
    state (rows on dim 1 of `hidden`). The encoder's GRU runs packed, as the crate's
    (`Gru::forward_padded`) and the LSTM translators' on both sides do: each sentence stops at its
    last token instead of running through the batch's padding (half of the test batches)."""

    def __init__(self, model):
        self.model = model

    def start(self, src):
        enc = self.model.encoder
        packed = pack_padded_sequence(enc.embed(src), (src != 0).sum(1), batch_first=True, enforce_sorted=False)
        out, hidden = enc.basic_rnn(packed)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
        keys = self.model.decoder.attn.linear_key(states)
        return {"states": states, "proj_keys": keys, "mask": (src != 0).unsqueeze(1), "hidden": hidden.transpose(0, 1)}

    def next(self, state, prefix):
        dec = self.model.decoder
        dec.attn.proj_keys, dec.attn.values = state["proj_keys"], state["states"]
        queries, hidden = dec.basic_rnn(dec.embed(prefix[:, -1:]), state["hidden"].transpose(0, 1).contiguous())
        context = dec.attn(queries, state["mask"])
        logits = dec.out(torch.cat([context, queries], -1))[:, 0]
        return logits, dict(state, hidden=hidden.transpose(0, 1))


class LstmSteps:
    """Next logits of the LSTM translator: one decoder step from the carried `h` and `c`."""

    def __init__(self, model):
        self.model = model

    def start(self, src):
        outputs, h, c = self.model.encoder(src)
        keys = self.model.decoder.attn(outputs)
        mask = torch.zeros(src.shape).masked_fill(src == 0, float("-inf"))
        return {"outputs": outputs, "keys": keys, "mask": mask, "h": h, "c": c}

    def next(self, state, prefix):
        logits, h, c, _ = self.model.decoder.step(prefix[:, -1], state["h"], state["c"], state["keys"], state["outputs"], state["mask"])
        return logits, dict(state, h=h, c=c)


def select(state, rows):
    return {k: v.index_select(0, rows) for k, v in state.items()}


def padded(rows):
    return torch.nn.utils.rnn.pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=PAD)


def greedy(steps, src, max_len):
    out = [[] for _ in range(src.size(0))]
    live = list(range(src.size(0)))
    state = steps.start(src)
    prefix = torch.full((src.size(0), 1), SOS, dtype=torch.long)
    for _ in range(max_len):
        logits, state = steps.next(state, prefix)
        best = logits.argmax(-1)
        keep = (best != EOS).nonzero().squeeze(1)
        for r in keep.tolist():
            out[live[r]].append(int(best[r]))
        if keep.numel() == 0:
            break
        prefix = torch.cat([prefix, best.unsqueeze(1)], 1)
        if keep.numel() < len(live):
            state, prefix = select(state, keep), prefix.index_select(0, keep)
            live = [live[r] for r in keep.tolist()]
    return out


def beam(steps, src, width, max_len):
    n = src.size(0)
    beams = [[([], 0.0)] for _ in range(n)]  # per sentence: (tokens, score)
    found = [[] for _ in range(n)]  # per sentence: (score, tokens, finished)
    state = steps.start(src)
    for _ in range(max_len):
        rows = [b for s in beams for b in s]
        prefix = torch.tensor([[SOS] + t for t, _ in rows], dtype=torch.long)
        logits, state = steps.next(state, prefix)
        lp = logits.double().log_softmax(-1)
        parents, offset, vocab = [], 0, lp.size(1)
        for i, sentence in enumerate(beams):
            k = len(sentence)
            if k == 0:
                continue
            scores = torch.tensor([s for _, s in sentence], dtype=torch.float64).unsqueeze(1) + lp[offset:offset + k]
            order = torch.sort(scores.flatten(), descending=True, stable=True)
            nxt = []
            for rank, (score, flat) in enumerate(zip(order.values[:2 * width].tolist(), order.indices[:2 * width].tolist())):
                if len(nxt) == width:
                    break
                b, v = divmod(flat, vocab)
                if v == EOS:
                    if rank < width:
                        found[i].append((score, sentence[b][0], True))
                else:
                    nxt.append((b, (sentence[b][0] + [v], score)))
            if len(found[i]) < width:
                parents.extend(offset + b for b, _ in nxt)
                beams[i] = [beam for _, beam in nxt]
            else:
                beams[i] = []
            offset += k
        if not parents:
            break
        state = select(state, torch.tensor(parents))
    best = []
    for i in range(n):
        hyps = found[i] + [(s, t, False) for t, s in beams[i]]
        best.append(max(hyps, key=lambda h: h[0])[1])  # the first of equal scores, as a stable sort
    return best


def decode_test(kind, model, cfg):
    """Greedy and beam-4 decoding of `cfg["test_src"]` in batches: ((seconds, tokens, outputs) for
    each). Tokens count `<eos>` where a translation ended with it."""
    steps = {"transformer": TransformerSteps, "gru": GruSteps}.get(kind, LstmSteps)(model)
    model.eval()
    batches = [padded(cfg["test_src"][i:i + cfg["batch"]]) for i in range(0, len(cfg["test_src"]), cfg["batch"])]
    results = []
    for run in (lambda s: greedy(steps, s, cfg["max_len"]), lambda s: beam(steps, s, cfg["beam_width"], cfg["max_len"])):
        start, outputs = time.perf_counter(), []
        with torch.no_grad():
            for src in batches:
                outputs.extend(run(src))
        seconds = time.perf_counter() - start
        results.append((seconds, sum(len(o) + (len(o) < cfg["max_len"]) for o in outputs), outputs))
    return results
