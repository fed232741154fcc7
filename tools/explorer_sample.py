"""Writes a synthetic page of attention explorers for developing and timing the explorer's script
(src/notebook/explorer/js/*.js, joined in the order of SCRIPT in src/notebook/explorer/mod.rs, and
explorer.css): target/explorer-sample/sample.html, and beside it sample.json, the weights each
explorer's data should decode to, and neurons.json, the neuron view's expected values in the
format of the payload spec's expected-values file (`{"<explorer id>": [kind, ...]}`, a kind null
where it carries no neurons), both for tools/check_explorer.py.

The page holds, in the HTML the Rust side emits (the style, a static placeholder and its note,
the JSON data, the script verbatim and its mount call):

- a lecture-size explorer: one kind, 1 layer x 1 head, 5 x 6 tokens, with an additive score's
  neurons (the shared `v` and a `tanh(W [q; k])` per query and key);
- a 2-layer x 4-head encoder self-attention on 19 tokens, scaled dot-product neurons;
- the big one: 6 layers x 8 heads, 40-token sentences, all three kinds: the encoder's and the
  decoder's self-attention with scaled dot-product neurons (the decoder's subsequent mask: scores
  -Infinity, weights exact zeros), the cross-attention without neurons;
- a 2 x 2 explorer inserted after the page loaded, the way JupyterLab inserts an output (its
  script tags re-created in a detached element, then attached), with "general" neurons (W k),
  masked.

Weights are softmax rows of the neurons' scores, or random (seeded) where there are no neurons.
The small ones travel as little-endian u16 over 65535 (the first data format); the others as
10-bit thousandths (`"bits": 10, "scale": 1000`, what the Rust side writes now), so both decoders
are exercised. The neuron arrays are little-endian f32 in base64.

    python tools/explorer_sample.py [OUT_DIR]
"""
import base64
import json
import math
import os
import random
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPLORER = os.path.join(ROOT, "src", "notebook", "explorer")


def script_files():
    """The script's files in the order mod.rs joins them (its SCRIPT constant's include_str!s)."""
    with open(os.path.join(EXPLORER, "mod.rs"), encoding="utf-8") as f:
        text = f.read()
    body = re.search(r"const SCRIPT: &str = concat!\((.*?)\);", text, re.S).group(1)
    return [os.path.join(EXPLORER, name) for name in re.findall(r'include_str!\("([^"]+)"\)', body)]


def script_text():
    return "".join(open(path, encoding="utf-8").read() for path in script_files())


def css_text():
    with open(os.path.join(EXPLORER, "explorer.css"), encoding="utf-8") as f:
        return f.read()


WORDS_DE = ("die Katze sitzt auf der Matte und schaut aus dem Fenster , während draußen ein kleiner Hund "
            "im Garten spielt . Der Himmel ist blau , die Sonne scheint hell über den Dächern der alten "
            "Stadt , und alle Kinder lachen laut").split()
WORDS_EN = ("the cat sits on the mat and looks out of the window , while outside a small dog plays in "
            "the garden . The sky is blue , the sun shines brightly over the roofs of the old town , "
            "warm").split()


def softmax_rows(rng, rows, cols, masked=False, sharp=2.5):
    """`rows` softmax rows over `cols` (row i sees only cols <= i when masked: exact zeros after)."""
    out = []
    for i in range(rows):
        seen = min(cols, i + 1) if masked else cols
        logits = [rng.gauss(0, sharp) for _ in range(seen)]
        top = max(logits)
        exps = [math.exp(x - top) for x in logits]
        total = sum(exps)
        out.extend([e / total for e in exps] + [0.0] * (cols - seen))
    return out


def kind(rng, name, rows, cols, layers, heads, masked=False, score=None, dim=8):
    """A kind; with `score` ("scaled dot", "dot", "general", "additive", "cosine" is not drawn
    here), its neurons too, and its weights the softmax of their scores."""
    if score:
        return neuron_kind(rng, name, rows, cols, layers, heads, masked, score, dim)
    weights = []
    for _ in range(layers * heads):
        weights.extend(softmax_rows(rng, len(rows), len(cols), masked))
    return {"name": name, "rows": rows, "cols": cols, "layers": layers, "heads": heads, "weights": weights}


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


LABELS = {"scaled dot": ("q", "k"), "dot": ("q", "k"), "general": ("q", "W k"), "additive": ("v", "tanh(W [q; k])")}


def neuron_kind(rng, name, rows, cols, layers, heads, masked, score, dim):
    """Random query- and key-side vectors (f32), their dots, scores (-inf where masked: key after
    query) and softmax weights, in the payload's layouts, and the kind's weights from them."""
    R, C = len(rows), len(cols)
    additive = score == "additive"
    vec = lambda sd=1.0: [f32(rng.gauss(0, sd)) for _ in range(dim)]
    left, right, dots, scores, weights = [], [], [], [], []
    for _ in range(layers * heads):
        if additive:
            v = vec(1.2)
            left.append([v])
            pairs = [[[f32(math.tanh(rng.gauss(0, 1))) for _ in range(dim)] for _ in range(C)] for _ in range(R)]
            right.append(pairs)
        else:
            qs, ks = [vec() for _ in range(R)], [vec() for _ in range(C)]
            left.append(qs)
            right.append(ks)
        D, S, W = [], [], []
        for r in range(R):
            a = left[-1][0] if additive else left[-1][r]
            drow, srow = [], []
            for c in range(C):
                b = right[-1][r][c] if additive else right[-1][c]
                dot = f32(sum(x * y for x, y in zip(a, b)))
                drow.append(dot)
                if masked and c > r:
                    srow.append(float("-inf"))
                else:
                    srow.append(f32(dot / math.sqrt(dim)) if score == "scaled dot" else dot)
            top = max(srow)
            exps = [math.exp(x - top) if x != float("-inf") else 0.0 for x in srow]
            total = sum(exps)
            D.append(drow)
            S.append(srow)
            W.append([f32(e / total) for e in exps])
        dots.append(D)
        scores.append(S)
        weights.append(W)
    nest = lambda flat: [flat[i * heads:(i + 1) * heads] for i in range(layers)]  # [layer][head]...
    label = LABELS[score]
    expected = {"left": nest(left), "right": nest(right), "dots": nest(dots),
                "scores": nest([[[None if x == float("-inf") else x for x in row] for row in m] for m in scores]),
                "weights": nest(weights)}
    neurons = {"score": score, "dim": dim,
               "left": {"label": label[0], "per_query": not additive, "values": b64f32(flatten(left))},
               "right": {"label": label[1], "per_query": additive, "values": b64f32(flatten(right))},
               "dots": b64f32(flatten(dots)), "scaling": f"\u00f7 \u221a{dim}" if score == "scaled dot" else "",
               "scores": b64f32(flatten(scores)), "weights": b64f32(flatten(weights))}
    return {"name": name, "rows": rows, "cols": cols, "layers": layers, "heads": heads,
            "weights": flatten(weights), "neurons": neurons, "expected": expected}


def flatten(x):
    return [v for item in x for v in flatten(item)] if isinstance(x, list) else [x]


def b64f32(values):
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()


def pack(values, bits):
    """Value i at bit `bits * i`, least significant bit first (bits 16: little-endian u16)."""
    out = bytearray((len(values) * bits + 7) // 8 + 2)
    for i, v in enumerate(values):
        bit = i * bits
        word = v << (bit % 8)
        for k in range(3):
            if bit // 8 + k < len(out):
                out[bit // 8 + k] |= (word >> (8 * k)) & 0xFF
    return bytes(out[: (len(values) * bits + 7) // 8]) if bits % 8 == 0 else bytes(out)


def data_json(title, kinds, bits):
    scale = 65535 if bits == 16 else 1000
    data = {"title": title, "decimals": 3}
    if bits != 16:
        data.update(bits=bits, scale=scale)
    data["kinds"] = [dict({n: v for n, v in k.items() if n != "expected"},
                          weights=base64.b64encode(pack([round(w * scale) for w in k["weights"]], bits)).decode()) for k in kinds]
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


PLACEHOLDER = ('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60"><rect width="240" height="60" fill="#eee"/>'
               '<text x="12" y="35" font-family="sans-serif" font-size="13">static heatmap (scripts off)</text></svg>')


NOTE = "A static picture: the explorer's script has not run here (the sample's stand-in for the Rust side's note)."


def explorer_html(uid, title, kinds, bits, script, css):
    return (f'<div class="zoo-explorer" id="zoo-explorer-{uid}"><style>{css}</style>'
            f'<div class="zoo-explorer-static">{PLACEHOLDER}<p class="zoo-explorer-note">{NOTE}</p></div>'
            f'<script type="application/json" class="zoo-explorer-data">{data_json(title, kinds, bits)}</script>'
            f'<script>{script}\nzooExplorerMount("zoo-explorer-{uid}");</script></div>')


# How JupyterLab shows an output: innerHTML into a detached host, each script re-created
# (evalInnerHTMLScriptTags), then the host attached (the scripts run only then).
LAB_INSERT = """<div id="lab-output"></div>
<script>
window.addEventListener("load", function () {
  setTimeout(function () {
    var host = document.createElement("div");
    host.innerHTML = JSON.parse(document.getElementById("lab-html").textContent);
    Array.prototype.slice.call(host.getElementsByTagName("script")).forEach(function (s) {
      var clone = document.createElement("script");
      for (var i = 0; i < s.attributes.length; i++) clone.setAttribute(s.attributes[i].name, s.attributes[i].value);
      clone.textContent = s.textContent;
      s.parentNode.replaceChild(clone, s);
    });
    document.getElementById("lab-output").appendChild(host);
  }, 50);
});
</script>"""


def build():
    rng = random.Random(20240)
    de, en = WORDS_DE[:40], WORDS_EN[:40]
    explorers = [
        ("lecture", "alphas (lecture size, 1 layer x 1 head)",
         [kind(rng, "alphas", ["I", "am", "a", "student", "<eos>"], ["je", "suis", "un", "\u00e9tudiant", "<eos>", "<pad>"], 1, 1,
               score="additive", dim=8)], 16),
        ("medium", "encoder self-attention, 2 layers x 4 heads, 19 tokens",
         [kind(rng, "encoder self-attention", de[:19], de[:19], 2, 4, score="scaled dot", dim=8)], 16),
        ("big", "attention, every layer and head (6 layers x 8 heads, 40 tokens)",
         [kind(rng, "encoder self-attention", de, de, 6, 8, score="scaled dot", dim=16),
          kind(rng, "decoder self-attention", en, en, 6, 8, masked=True, score="scaled dot", dim=16),
          kind(rng, "cross-attention", en, de, 6, 8)], 10),
        ("lab", "inserted as JupyterLab inserts an output (2 layers x 2 heads, decoder self-attention)",
         [kind(rng, "decoder self-attention", en[:8], en[:8], 2, 2, masked=True, score="general", dim=4)], 10),
    ]
    return explorers


def write(out_dir=None):
    out_dir = out_dir or os.path.join(ROOT, "target", "explorer-sample")
    os.makedirs(out_dir, exist_ok=True)
    script, css = script_text(), css_text()
    explorers = build()
    parts, expected, neurons = [], [], {}
    lab_html = None
    for uid, title, kinds, bits in explorers:
        html = explorer_html(uid, title, kinds, bits, script, css)
        neurons[f"zoo-explorer-{uid}"] = [k.get("expected") for k in kinds]
        scale = 65535 if bits == 16 else 1000
        expected.append({"id": f"zoo-explorer-{uid}", "scale": scale,
                         "kinds": [{"name": k["name"], "weights": [round(w, 6) for w in k["weights"]]} for k in kinds]})
        if uid == "lab":
            lab_html = html
            continue
        parts.append(f"<h2>{title}</h2>\n<p>Some text before the output.</p>\n{html}")
    lab_json = json.dumps(lab_html).replace("<", "\\u003c")
    parts.append(f'<h2>{explorers[-1][1]}</h2>\n<script type="application/json" id="lab-html">{lab_json}</script>\n{LAB_INSERT}')
    page = ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>attention explorer sample</title>'
            '<style>body{font-family:sans-serif;max-width:1200px;margin:16px auto;padding:0 16px}</style></head>\n<body>\n'
            + "\n".join(parts) + "\n</body></html>\n")
    path = os.path.join(out_dir, "sample.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    with open(os.path.join(out_dir, "sample.json"), "w", encoding="utf-8") as f:
        json.dump({"explorers": expected}, f, separators=(",", ":"))
    with open(os.path.join(out_dir, "neurons.json"), "w", encoding="utf-8") as f:
        json.dump(neurons, f, separators=(",", ":"))
    return path


if __name__ == "__main__":
    path = write(sys.argv[1] if len(sys.argv) > 1 else None)
    print(f"{path}: {os.path.getsize(path)} bytes")
