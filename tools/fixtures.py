#!/usr/bin/env python3
"""Writes the JSON fixtures that the Rust tests compare against: what PyTorch and NumPy themselves
compute for the same seeds. Run through `make fixtures` (which installs PyTorch and NumPy from PyPI
into .venv-ref); the output is deterministic, so running it twice changes nothing.

Each section is a function returning a JSON-ready dict; `tests/fixtures/<name>.json` holds it.
"""
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
SEEDS = [0, 1, 21, 42, 2**40 + 5]


def number(v):
    """A float for JSON, which has no NaN or infinities: those are written as strings."""
    v = float(v)
    return v if math.isfinite(v) else str(v)


def flat(t):
    return [number(v) for v in t.detach().reshape(-1).tolist()]


def tensor(t):
    return {"shape": list(t.shape), "data": flat(t)}


def state(module):
    """Parameters by name, in PyTorch's order (buffers such as a positional encoding left out)."""
    return [[name, tensor(p)] for name, p in module.named_parameters()]


# ---------------------------------------------------------------- random numbers
def generators():
    cases = []
    for seed in SEEDS:
        torch.manual_seed(seed)
        c = {"seed": seed}
        c["rand_7"] = flat(torch.rand(7))
        c["uniform_5_m2.5_3"] = flat(torch.empty(5).uniform_(-2.5, 3.0))
        c["randn_5"] = flat(torch.randn(5))  # fewer than 16: double-precision path
        c["randn_3_after"] = flat(torch.randn(3))  # uses the cached second normal
        c["randn_16"] = flat(torch.randn(16))
        c["randn_40"] = flat(torch.randn(40))  # 16 or more, not a multiple of 16
        c["randn_2x3x4"] = tensor(torch.randn(2, 3, 4))
        c["normal_20_m1_s2"] = flat(torch.empty(20).normal_(1.0, 2.0))
        c["randperm_10"] = torch.randperm(10).tolist()
        c["randperm_1000"] = torch.randperm(1000).tolist()
        c["bernoulli_40_p0.3"] = flat(torch.empty(40).bernoulli_(0.3))
        c["dropout_mask_1000_p0.5"] = flat(F.dropout(torch.ones(1000), p=0.5, training=True) != 0)
        c["rand_3_end"] = flat(torch.rand(3))
        g = torch.Generator().manual_seed(seed)
        c["gen_randperm_256"] = torch.randperm(256, generator=g).tolist()
        c["gen_random_int64"] = int(torch.empty((), dtype=torch.int64).random_(generator=g).item())
        c["gen_rand_4"] = flat(torch.rand(4, generator=g))
        cases.append(c)
    return {"cases": cases}


# ---------------------------------------------------------------- initialisation
def layers():
    cases = []
    for seed in SEEDS:
        torch.manual_seed(seed)
        c = {"seed": seed}
        c["linear_3_4"] = state(nn.Linear(3, 4))
        c["linear_5_2_nobias"] = state(nn.Linear(5, 2, bias=False))
        c["gru_2_2"] = state(nn.GRU(2, 2, batch_first=True))
        c["gru_3_4_l2_bi"] = state(nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True))
        c["lstm_3_5"] = state(nn.LSTM(3, 5, batch_first=True))
        c["lstm_2_3_bi"] = state(nn.LSTM(2, 3, bidirectional=True, batch_first=True))
        c["embedding_10_4"] = state(nn.Embedding(10, 4))
        c["layernorm_6"] = state(nn.LayerNorm(6))
        c["linear_after"] = state(nn.Linear(2, 2))
        cases.append(c)
    # Forward passes of linear layers as the models here use them (a batch of 16 sequences of
    # 2 flattened to 32 rows): PyTorch's result, bit for bit, for up to 6 inputs.
    forwards = []
    torch.manual_seed(5)
    for n_in, n_out in [(2, 2), (2, 10), (4, 3), (6, 2)]:
        lin = nn.Linear(n_in, n_out)
        x = torch.randn(16, 2, n_in)
        forwards.append({"n_in": n_in, "n_out": n_out, "state": state(lin), "x": tensor(x), "y": tensor(lin(x))})
    return {"cases": cases, "linear_forward": forwards}


def rnn_forward():
    """Forward passes of the recurrent layers, to check the arithmetic of each cell."""
    torch.manual_seed(21)
    gru = nn.GRU(2, 2, batch_first=True)
    corners = torch.tensor([[[-1.0, -1.0], [-1.0, 1.0]]])
    out, h = gru(corners)
    res = {"gru_corners": {"state": state(gru), "x": tensor(corners), "out": tensor(out), "h": tensor(h)}}
    torch.manual_seed(5)
    x = torch.randn(3, 4, 3)
    for name, layer in [
        ("gru_l2_bi", nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True)),
        ("lstm_bi", nn.LSTM(3, 5, bidirectional=True, batch_first=True)),
    ]:
        out, h = layer(x)
        h = h if isinstance(h, torch.Tensor) else torch.stack(h)
        res[name] = {"state": state(layer), "x": tensor(x), "out": tensor(out), "h": tensor(h)}
    return res


# ---------------------------------------------------------------- NumPy data
def squares(n, variable_len, seed):
    """The lecture's noisy squares, written from its description: a random starting corner, an
    optional random length (2 to 4), a random direction, then noise with std 0.1 per sequence."""
    corners = np.array([[-1, -1], [-1, 1], [1, 1], [1, -1]])
    np.random.seed(seed)
    starts = np.random.randint(4, size=n)
    lengths = np.random.randint(3, size=n) + 2 if variable_len else np.full(n, 4)
    directions = np.random.randint(2, size=n)
    points = []
    for start, direction, length in zip(starts, directions, lengths):
        walk = corners[[(start + k) % 4 for k in range(4)]]
        if direction == 0:
            walk = walk[::-1]
        points.append(walk[:length] + np.random.randn(length, 2) * 0.1)
    return points, directions


def numpy_data():
    cases = []
    for n, variable_len, seed in [(256, False, 13), (128, False, 19), (40, True, 7), (10, True, 0), (5, False, 4294967295)]:
        points, directions = squares(n, variable_len, seed)
        cases.append({
            "n": n, "variable_len": variable_len, "seed": seed,
            "points": [p.tolist() for p in points],
            "directions": [int(d) for d in directions],
        })
    rs = np.random.RandomState(2024)
    raw = {"seed": 2024, "randint_10_20": rs.randint(10, size=20).tolist(),
           "rand_5": rs.rand(5).tolist(), "randn_7": rs.randn(7).tolist(),
           "randint_1000_5": rs.randint(1000, size=5).tolist()}
    return {"cases": cases, "random_state": raw}


# ---------------------------------------------------------------- lecture part 1: seq2seq
class GruEncoder(nn.Module):
    def __init__(self, n_features, hidden_dim):
        super().__init__()
        self.n_features, self.hidden_dim = n_features, hidden_dim
        self.basic_rnn = nn.GRU(n_features, hidden_dim, batch_first=True)

    def forward(self, x):
        states, _ = self.basic_rnn(x)
        return states


class GruDecoder(nn.Module):
    def __init__(self, n_features, hidden_dim):
        super().__init__()
        self.n_features, self.hidden_dim = n_features, hidden_dim
        self.basic_rnn = nn.GRU(n_features, hidden_dim, batch_first=True)
        self.regression = nn.Linear(hidden_dim, n_features)
        self.hidden = None

    def init_hidden(self, states):
        self.hidden = states[:, -1:].permute(1, 0, 2)

    def forward(self, x):
        out, self.hidden = self.basic_rnn(x, self.hidden)
        return self.regression(out[:, -1:]).view(-1, 1, self.n_features)


class Seq2Seq(nn.Module):
    """Encoder, then the decoder fed its own output or, with teacher forcing, the truth. One
    torch.rand(1) is drawn per target step, in evaluation too."""

    def __init__(self, encoder, decoder, input_len, target_len, teacher_forcing_prob=0.5):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.input_len, self.target_len, self.teacher_forcing_prob = input_len, target_len, teacher_forcing_prob

    def forward(self, x):
        source, target = x[:, :self.input_len], x[:, self.input_len:]
        self.decoder.init_hidden(self.encoder(source))
        step_input, outs = source[:, -1:], []
        for i in range(self.target_len):
            out = self.decoder(step_input)
            outs.append(out)
            prob = self.teacher_forcing_prob if self.training else 0.0
            step_input = target[:, i:i + 1] if torch.rand(1) <= prob else out
        return torch.cat(outs, dim=1)


def squares_tensor(n, seed):
    points, directions = squares(n, False, seed)
    return torch.as_tensor(np.array(points)).float(), [int(d) for d in directions]


def fit(model, train_loader, val_loader, n_epochs, lr=0.01, seed=42):
    """The book's trainer in short: MSE and Adam; at the start the default generator and the
    training loader's generator are seeded; per epoch the mean mini-batch losses."""
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    torch.manual_seed(seed)
    train_loader.generator.manual_seed(seed)
    losses, val_losses = [], []
    for _ in range(n_epochs):
        model.train()
        batch = []
        for x, y in train_loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            batch.append(loss.item())
        losses.append(float(np.mean(batch)))
        model.eval()
        with torch.no_grad():
            val_losses.append(float(np.mean([loss_fn(model(x), y).item() for x, y in val_loader])))
    return losses, val_losses


def loaders():
    from torch.utils.data import DataLoader, TensorDataset
    full_train, _ = squares_tensor(256, 13)
    full_test, _ = squares_tensor(128, 19)
    train = TensorDataset(full_train, full_train[:, 2:])
    test = TensorDataset(full_test[:, :2], full_test[:, 2:])
    train_loader = DataLoader(train, batch_size=16, shuffle=True, generator=torch.Generator())
    return train_loader, DataLoader(test, batch_size=16)


def seq2seq():
    corners = torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]]).view(1, 4, 2)
    source, target = corners[:, :2], corners[:, 2:]
    res = {}
    torch.manual_seed(21)
    encoder = GruEncoder(2, 2)
    states = encoder(source)
    res["encoder_states"] = tensor(states)
    torch.manual_seed(21)
    decoder = GruDecoder(2, 2)
    for name, forcing in [("own", False), ("forced", True)]:
        decoder.init_hidden(states)
        step_input, outs, hiddens = source[:, -1:], [], []
        for i in range(2):
            hiddens.append(flat(decoder.hidden))
            out = decoder(step_input)
            outs.append(flat(out))
            step_input = target[:, i:i + 1] if forcing else out
        res[f"decoder_{name}"] = {"outputs": outs, "hiddens": hiddens}
    model = Seq2Seq(encoder, decoder, 2, 2, teacher_forcing_prob=1.0)
    model.train()
    res["encdec_train_p1"] = tensor(model(corners))
    model.eval()
    res["encdec_eval"] = tensor(model(source))

    train_loader, test_loader = loaders()
    res["loader_orders"] = loader_orders()
    torch.manual_seed(23)
    model = Seq2Seq(GruEncoder(2, 2), GruDecoder(2, 2), 2, 2, teacher_forcing_prob=0.5)
    res["initial_state"] = state(model)
    losses, val_losses = fit(model, train_loader, test_loader, 100)
    res["train_100"] = {"losses": losses, "val_losses": val_losses, "final_state": state(model)}
    return res


def loader_orders():
    """Batches of three passes over a 10-item dataset (batch size 4: the last batch has 2),
    shuffled by the loader's own generator seeded 42, then by the default generator."""
    from torch.utils.data import DataLoader, TensorDataset
    data = TensorDataset(torch.arange(10).float())
    own = DataLoader(data, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(42))
    res = {"own": [[b[0].int().tolist() for b in own] for _ in range(3)]}
    torch.manual_seed(7)
    default = DataLoader(data, batch_size=4, shuffle=True)
    res["default"] = [[b[0].int().tolist() for b in default] for _ in range(2)]
    plain = DataLoader(data, batch_size=4)
    res["sequential"] = [b[0].int().tolist() for b in plain]
    res["default_rand_after"] = flat(torch.rand(2))
    return res


# ---------------------------------------------------------------- lecture part 2: attention
class Attn(nn.Module):
    """Attention with a choice of score; the query, key and value layers come first, then the
    score's own parameters (general: W; additive: W over [q; k] and v; location: W_a)."""

    def __init__(self, hidden_dim, input_dim=None, proj_values=False, score="scaled_dot", source_len=None):
        super().__init__()
        self.d_k, self.score = hidden_dim, score
        input_dim = input_dim or hidden_dim
        self.proj_values = proj_values
        self.linear_query = nn.Linear(input_dim, hidden_dim)
        self.linear_key = nn.Linear(input_dim, hidden_dim)
        self.linear_value = nn.Linear(input_dim, hidden_dim)
        if score == "general":
            self.linear_score = nn.Linear(hidden_dim, hidden_dim, bias=False)
        elif score == "additive":
            self.linear_score = nn.Linear(2 * hidden_dim, hidden_dim, bias=False)
            self.linear_v = nn.Linear(hidden_dim, 1, bias=False)
        elif score == "location":
            self.linear_score = nn.Linear(hidden_dim, source_len)

    def init_keys(self, keys):
        self.proj_keys = self.linear_key(keys)
        self.values = self.linear_value(keys) if self.proj_values else keys

    def scores(self, query):
        q, k = self.linear_query(query), self.proj_keys
        if self.score == "scaled_dot":
            # Multiplied by 1/sqrt(d_k): the PyTorch that printed the lecture's numbers divided a
            # float32 tensor by a scalar this way; today's PyTorch divides (one ulp apart at
            # times, which the self-attention trainings amplify; see selfattn()).
            return q @ k.transpose(1, 2) * (1 / math.sqrt(self.d_k))
        if self.score == "dot":
            return q @ k.transpose(1, 2)
        if self.score == "cosine":
            return F.cosine_similarity(q.unsqueeze(2), k.unsqueeze(1), dim=-1)
        if self.score == "general":
            return q @ self.linear_score(k).transpose(1, 2)
        if self.score == "additive":
            n, lq, l = q.shape[0], q.shape[1], k.shape[1]
            pair = torch.cat([q.unsqueeze(2).expand(n, lq, l, self.d_k), k.unsqueeze(1).expand(n, lq, l, self.d_k)], -1)
            return self.linear_v(torch.tanh(self.linear_score(pair))).squeeze(-1)
        if self.score == "location":
            return self.linear_score(q)
        raise ValueError(self.score)

    def forward(self, query, mask=None):
        s = self.scores(query)
        if mask is not None:
            s = s.masked_fill(mask == 0, -1e9)
        alphas = F.softmax(s, dim=-1)
        self.alphas = alphas.detach()
        return alphas @ self.values


class GruDecoderAttn(nn.Module):
    def __init__(self, n_features, hidden_dim):
        super().__init__()
        self.n_features = n_features
        self.basic_rnn = nn.GRU(n_features, hidden_dim, batch_first=True)
        self.attn = Attn(hidden_dim)
        self.regression = nn.Linear(2 * hidden_dim, n_features)

    def init_hidden(self, states):
        self.attn.init_keys(states)
        self.hidden = states[:, -1:].permute(1, 0, 2)

    def forward(self, x, mask=None):
        out, self.hidden = self.basic_rnn(x, self.hidden)
        query = out[:, -1:]
        context = self.attn(query, mask=mask)
        return self.regression(torch.cat([context, query], -1)).view(-1, 1, self.n_features)


class Seq2SeqAttn(Seq2Seq):
    def forward(self, x):
        source, target = x[:, :self.input_len], x[:, self.input_len:]
        self.decoder.init_hidden(self.encoder(source))
        step_input, outs, alphas = source[:, -1:], [], []
        for i in range(self.target_len):
            out = self.decoder(step_input)
            outs.append(out)
            alphas.append(self.decoder.attn.alphas)
            prob = self.teacher_forcing_prob if self.training else 0.0
            step_input = target[:, i:i + 1] if torch.rand(1) <= prob else out
        self.alphas = torch.cat(alphas, dim=1)
        return torch.cat(outs, dim=1)


class WideMultiHead(nn.Module):
    def __init__(self, n_heads, d_model, input_dim=None, proj_values=True):
        super().__init__()
        self.linear_out = nn.Linear(n_heads * d_model, d_model)
        self.attn_heads = nn.ModuleList([Attn(d_model, input_dim, proj_values) for _ in range(n_heads)])

    def init_keys(self, keys):
        for h in self.attn_heads:
            h.init_keys(keys)

    def forward(self, query, mask=None):
        return self.linear_out(torch.cat([h(query, mask) for h in self.attn_heads], -1))


class BlogAttention(nn.Module):
    def __init__(self, input_dim, output_dim):
        super().__init__()
        self.query = nn.Linear(input_dim, output_dim)
        self.key = nn.Linear(input_dim, output_dim)
        self.value = nn.Linear(input_dim, output_dim)

    def forward(self, q, k, v):
        w = F.softmax(self.query(q) @ self.key(k).transpose(-2, -1), dim=-1)
        return w @ self.value(v)


def attention():
    res = {}
    corners = torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]]).view(1, 4, 2)
    source = corners[:, :2]
    torch.manual_seed(21)
    states = GruEncoder(2, 2)(source)
    torch.manual_seed(21)
    decoder = GruDecoder(2, 2)
    decoder.init_hidden(states)
    decoder(source[:, -1:])
    query = decoder.hidden.permute(1, 0, 2)
    products = query @ states.transpose(1, 2)
    scaled = products / math.sqrt(2)
    res["steps"] = {
        "query": tensor(query),
        "uniform_context": tensor(torch.full((1, 1, 2), 0.5) @ states),
        "products": tensor(products), "alphas": tensor(F.softmax(products, -1)),
        "scaled_products": tensor(scaled), "scaled_alphas": tensor(F.softmax(scaled, -1)),
        "scaled_context": tensor(F.softmax(scaled, -1) @ states),
    }
    q = torch.tensor([0.55, 0.95]).view(1, 1, 2)
    k = torch.tensor([[0.65, 0.2], [0.85, -0.4], [-0.95, -0.75]]).view(1, 3, 2)
    prod = q @ k.transpose(1, 2)
    res["toy"] = {"q": tensor(q), "k": tensor(k), "products": tensor(prod),
                  "alphas": tensor(F.softmax(prod, -1)), "context": tensor(F.softmax(prod, -1) @ k)}
    torch.manual_seed(11)
    attn = Attn(2)
    keys = torch.tensor([[[-0.38, 0.44], [0.85, -0.05]]])
    attn.init_keys(keys)
    source_seq = torch.tensor([[[-1.0, 1.0], [0.0, 0.0]]])
    mask = (source_seq != 0).all(axis=2).unsqueeze(1)
    context = attn(torch.tensor([[[-1.0, 1.0]]]), mask=mask)
    res["mask"] = {"alphas": tensor(attn.alphas), "context": tensor(context), "mask": tensor(mask.float())}

    torch.manual_seed(21)
    encoder, dec = GruEncoder(2, 2), GruDecoderAttn(2, 2)
    dec.init_hidden(encoder(source))
    step_input, outs = source[:, -1:], []
    for _ in range(2):
        out = dec(step_input)
        outs.append(flat(out))
        step_input = out
    res["decoder_attn_outputs"] = outs

    scores = {}
    torch.manual_seed(3)
    keys, query = torch.randn(2, 4, 3), torch.randn(2, 2, 3)
    mask = torch.tensor([[[1, 1, 1, 0]], [[1, 1, 1, 1]]])
    for name in ["scaled_dot", "dot", "general", "additive", "cosine", "location"]:
        torch.manual_seed(7)
        a = Attn(3, proj_values=True, score=name, source_len=4)
        a.init_keys(keys)
        ctx = a(query, mask=mask)
        scores[name] = {"state": state(a), "alphas": tensor(a.alphas), "context": tensor(ctx)}
    res["scores"] = {"keys": tensor(keys), "query": tensor(query), "mask": tensor(mask.float()), "cases": scores}

    torch.manual_seed(17)
    mha = WideMultiHead(3, 2, proj_values=True)
    keys, query = torch.randn(2, 3, 2), torch.randn(2, 1, 2)
    mha.init_keys(keys)
    out = mha(query)
    res["multihead"] = {"state": state(mha), "keys": tensor(keys), "query": tensor(query), "out": tensor(out),
                        "alphas": tensor(torch.stack([h.alphas for h in mha.attn_heads]))}
    torch.manual_seed(19)
    blog = BlogAttention(3, 4)
    x, y = torch.randn(2, 5, 3), torch.randn(2, 2, 3)
    res["blog"] = {"state": state(blog), "x": tensor(x), "y": tensor(y), "self": tensor(blog(x, x, x)), "cross": tensor(blog(y, x, x))}

    train_loader, test_loader = loaders()
    torch.manual_seed(23)
    model = Seq2SeqAttn(GruEncoder(2, 2), GruDecoderAttn(2, 2), 2, 2, teacher_forcing_prob=0.5)
    res["initial_state"] = state(model)
    losses, val_losses = fit(model, train_loader, test_loader, 100)
    full_train, _ = squares_tensor(256, 13)
    model.eval()
    with torch.no_grad():
        model(full_train[3:4, :2])
    res["train_100"] = {"losses": losses, "val_losses": val_losses, "alphas_seq3": tensor(model.alphas)}
    return res


# ---------------------------------------------------------------- lecture part 3: self-attention
def ffn(d_in, ff_units, d_out):
    return nn.Sequential(nn.Linear(d_in, ff_units), nn.ReLU(), nn.Linear(ff_units, d_out))


class SelfAttnEncoder(nn.Module):
    def __init__(self, n_heads, d_model, ff_units, n_features=None):
        super().__init__()
        self.self_attn_heads = WideMultiHead(n_heads, d_model, input_dim=n_features)
        self.ffn = ffn(d_model, ff_units, d_model)

    def forward(self, query, mask=None):
        self.self_attn_heads.init_keys(query)
        return self.ffn(self.self_attn_heads(query, mask))


class SelfAttnDecoder(nn.Module):
    def __init__(self, n_heads, d_model, ff_units, n_features=None):
        super().__init__()
        n_features = n_features or d_model
        self.self_attn_heads = WideMultiHead(n_heads, d_model, input_dim=n_features)
        self.cross_attn_heads = WideMultiHead(n_heads, d_model)
        self.ffn = ffn(d_model, ff_units, n_features)

    def init_keys(self, states):
        self.cross_attn_heads.init_keys(states)

    def forward(self, query, source_mask=None, target_mask=None):
        self.self_attn_heads.init_keys(query)
        att1 = self.self_attn_heads(query, target_mask)
        return self.ffn(self.cross_attn_heads(att1, source_mask))


def no_peeking(size):
    return torch.tril(torch.ones(1, size, size)).bool()


class SinusoidalPE(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.d_model = d_model
        speeds = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        positions = torch.arange(0, max_len).float().unsqueeze(1)
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(positions * speeds)
        pe[:, 1::2] = torch.cos(positions * speeds)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x * math.sqrt(self.d_model) + self.pe[:, :x.size(1)]


class WithPE(nn.Module):
    def __init__(self, layer, max_len, dim):
        super().__init__()
        self.pe = SinusoidalPE(max_len, dim)
        self.layer = layer

    def init_keys(self, states):
        self.layer.init_keys(states)

    def forward(self, query, *masks):
        return self.layer(self.pe(query), *masks)


class SelfAttnSeq2Seq(nn.Module):
    """Training: the shifted target at once under the subsequent mask; evaluation: one step at a
    time, growing the mask."""

    def __init__(self, encoder, decoder, input_len, target_len):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.input_len, self.target_len = input_len, target_len

    def forward(self, x):
        source = x[:, :self.input_len]
        self.decoder.init_keys(self.encoder(source, None))
        if self.training:
            return self.decoder(x[:, self.input_len - 1:-1], None, no_peeking(self.target_len))
        inputs = source[:, -1:]
        for i in range(self.target_len):
            out = self.decoder(inputs, None, no_peeking(i + 1))
            inputs = torch.cat([inputs, out[:, -1:]], dim=1).detach()
        return inputs[:, 1:]


# The lecture's two self-attention trainings: name, seed, with positional encoding.
LECTURE_SELFATTN = [("selfattn", 23, False), ("selfattn_pe", 43, True)]


def lecture_selfattn(seed, with_pe):
    """The lecture's self-attention encoder-decoder (3 heads, d_model 2, 10 hidden units), made
    right after manual_seed(seed)."""
    torch.manual_seed(seed)
    if with_pe:
        enc = WithPE(SelfAttnEncoder(3, 2, 10, 2), 100, 2)
        dec = WithPE(SelfAttnDecoder(3, 2, 10, 2), 100, 2)
    else:
        enc, dec = SelfAttnEncoder(3, 2, 10, 2), SelfAttnDecoder(3, 2, 10, 2)
    return SelfAttnSeq2Seq(enc, dec, 2, 2)


def selfattn():
    res = {}
    corners = torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]]).view(1, 4, 2)
    source, target = corners[:, :2], corners[:, 2:]
    torch.manual_seed(11)
    encself = SelfAttnEncoder(3, 2, 10, 2)
    states = encself(source)
    res["encoder_states"] = tensor(states)
    res["encoder_state_dict"] = state(encself)
    torch.manual_seed(13)
    decself = SelfAttnDecoder(3, 2, 10, 2)
    res["decoder_state_dict"] = state(decself)
    decself.init_keys(states)
    shifted = torch.cat([source[:, -1:], target[:, :-1]], dim=1)
    out = decself(shifted, None, no_peeking(2))
    res["decoder_self_alphas"] = tensor(torch.stack([h.alphas for h in decself.self_attn_heads.attn_heads]))
    res["decoder_shifted_out"] = tensor(out)
    inputs = source[:, -1:]
    out = decself(inputs, None, no_peeking(1))
    res["first_step"] = tensor(out)
    inputs = torch.cat([inputs, out[:, -1:]], dim=-2)
    res["second_step"] = tensor(decself(inputs, None, no_peeking(2)))
    res["subsequent_mask_3"] = tensor(no_peeking(3).float())
    pe = SinusoidalPE(2, 2)
    res["pe_2_2"] = {"pe": tensor(pe.pe), "out": tensor(pe(source)), "plus": tensor(source + pe.pe)}
    res["pe_10_8"] = tensor(SinusoidalPE(10, 8).pe[0])
    train_loader, test_loader = loaders()
    full_test, _ = squares_tensor(128, 19)
    for name, seed, with_pe in LECTURE_SELFATTN:
        model = lecture_selfattn(seed, with_pe)
        initial = state(model)
        losses, val_losses = fit(model, train_loader, test_loader, 100)
        model.eval()
        with torch.no_grad():
            pred = model(full_test[:4, :2])
        res[name] = {"initial_state": initial, "losses": losses, "val_losses": val_losses, "pred_test_4": tensor(pred)}
    res["variants"] = training_variants(train_loader, test_loader)
    return res


def training_variants(train_loader, test_loader):
    """The same two trainings with arithmetic that differs from the above only in rounding:
    scores divided by sqrt(d_k) (today's PyTorch), linear layers as `x @ W.T + b` instead of
    one fused addmm, and the lecture's arithmetic from a start one ulp away (the first weight of
    the decoder's feed-forward network nudged up to the next float32). Their spread shows how far
    float32 rounding alone moves the final losses."""
    out = {}
    scores, linear = Attn.scores, nn.Linear.forward

    def divided(self, query):
        if self.score != "scaled_dot":
            return scores(self, query)
        return self.linear_query(query) @ self.proj_keys.transpose(1, 2) / math.sqrt(self.d_k)

    def nudged(model):
        decoder = getattr(model.decoder, "layer", model.decoder)
        with torch.no_grad():
            w = decoder.ffn[0].weight
            w[0, 0] = torch.nextafter(w[0, 0], torch.tensor(math.inf))
        return model

    variants = {
        "divided_scores": (divided, linear, None),
        "unfused_linear": (scores, lambda self, x: x @ self.weight.t() + self.bias, None),
        "nudged_weight": (scores, linear, nudged),
    }
    try:
        for variant, (score_fn, linear_fn, start) in variants.items():
            Attn.scores, nn.Linear.forward = score_fn, linear_fn
            for name, seed, with_pe in LECTURE_SELFATTN:
                model = lecture_selfattn(seed, with_pe)
                if start is not None:
                    model = start(model)
                losses, val_losses = fit(model, train_loader, test_loader, 100)
                out.setdefault(name, {})[variant] = {"loss": losses[-1], "val_loss": val_losses[-1]}
    finally:
        Attn.scores, nn.Linear.forward = scores, linear
    return out


# ---------------------------------------------------------------- how PyTorch prints tensors
def display():
    torch.manual_seed(0)
    cases = {
        "fixed_2x2": torch.tensor([[0.3105, -0.5263], [0.0832, -0.0356]]),
        "ints_4x2": torch.tensor([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]]),
        "scalar": torch.tensor(3.25),
        "vector": torch.tensor([1.5, -2.25, 10.0]),
        "sci_small": torch.tensor([1e-5, 0.5, 2.0]),
        "sci_large": torch.tensor([1.0, 2e9]),
        "ratio": torch.tensor([0.001, 12.5]),
        "randn_3d": torch.randn(2, 3, 4),
        "randn_4d": torch.randn(2, 2, 2, 3),
        "large_2d": torch.randn(40, 30),
        "large_3d": torch.randn(12, 10, 11),
        "large_1d": torch.arange(2000).float(),
        "mask_u8": torch.tensor([[1, 0], [1, 1]], dtype=torch.uint8),
        "int64": torch.tensor([[3, -12], [100, 7]]),
        "negzero_nan_inf": torch.tensor([float("nan"), float("inf"), -1.5, 0.25]),
    }
    return {name: {"tensor": tensor(t), "dtype": str(t.dtype), "str": str(t)} for name, t in cases.items()}


SECTIONS = {
    "generators": generators,
    "layers": layers,
    "rnn_forward": rnn_forward,
    "numpy_data": numpy_data,
    "seq2seq": seq2seq,
    "display": display,
    "attention": attention,
    "selfattn": selfattn,
}


def dumps(value, depth=0):
    """JSON with sorted keys, one entry a line, but lists of numbers on one line, so the fixtures
    stay readable and their diffs small."""
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(k)}: {dumps(value[k], depth + 1)}" for k in sorted(value)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value) and any(not isinstance(v, str) for v in value):
            return json.dumps(value)
        return "[\n" + ",\n".join(inner + dumps(v, depth + 1) for v in value) + "\n" + pad + "]"
    return json.dumps(value)


def main(names):
    os.makedirs(OUT, exist_ok=True)
    for name in names or SECTIONS:
        data = SECTIONS[name]()
        data["_source"] = f"tools/fixtures.py ({name}); torch {torch.__version__.split('+')[0]}, numpy {np.__version__}"
        path = os.path.join(OUT, f"{name}.json")
        with open(path, "w") as f:
            f.write(dumps(data))
            f.write("\n")
        print(f"wrote {os.path.relpath(path)}")


if __name__ == "__main__":
    main(sys.argv[1:])
