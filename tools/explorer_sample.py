"""Writes a synthetic page of attention explorers for developing and timing the explorer's script
(src/notebook/explorer/explorer.js and explorer_model.js): target/explorer-sample/sample.html, and beside it
sample.json, the weights each explorer's data should decode to (for tools/check_explorer.py).

The page holds, in the HTML the Rust side emits (a static placeholder, the JSON data, the script
verbatim and its mount call):

- a lecture-size explorer: one kind, 1 layer x 1 head, 5 x 6 tokens;
- a 2-layer x 4-head encoder self-attention on 19 tokens;
- the big one: 6 layers x 8 heads, 40-token sentences, all three kinds (the decoder's
  self-attention with the subsequent mask's exact zeros);
- a 2 x 2 explorer inserted after the page loaded, the way JupyterLab inserts an output (its
  script tags re-created in a detached element, then attached).

Weights are random softmax rows (seeded). The small ones travel as little-endian u16 over 65535
(the first data format); the others as 10-bit thousandths (`"bits": 10, "scale": 1000`, what the
Rust side writes now), so both decoders are exercised.

    python tools/explorer_sample.py [OUT_DIR]
"""
import base64
import json
import math
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the script's two halves, joined as src/notebook/explorer/mod.rs joins them
SCRIPTS = [os.path.join(ROOT, "src", "notebook", "explorer", name) for name in ("explorer.js", "explorer_model.js")]
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


def kind(rng, name, rows, cols, layers, heads, masked=False):
    weights = []
    for _ in range(layers * heads):
        weights.extend(softmax_rows(rng, len(rows), len(cols), masked))
    return {"name": name, "rows": rows, "cols": cols, "layers": layers, "heads": heads, "weights": weights}


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
    data["kinds"] = [dict(k, weights=base64.b64encode(pack([round(w * scale) for w in k["weights"]], bits)).decode()) for k in kinds]
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


PLACEHOLDER = ('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60"><rect width="240" height="60" fill="#eee"/>'
               '<text x="12" y="35" font-family="sans-serif" font-size="13">static heatmap (scripts off)</text></svg>')


def explorer_html(uid, title, kinds, bits, script):
    return (f'<div class="zoo-explorer" id="zoo-explorer-{uid}"><div class="zoo-explorer-static">{PLACEHOLDER}</div>'
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
         [kind(rng, "alphas", ["I", "am", "a", "student", "<eos>"], ["je", "suis", "un", "\u00e9tudiant", "<eos>", "<pad>"], 1, 1)], 16),
        ("medium", "encoder self-attention, 2 layers x 4 heads, 19 tokens",
         [kind(rng, "encoder self-attention", de[:19], de[:19], 2, 4)], 16),
        ("big", "attention, every layer and head (6 layers x 8 heads, 40 tokens)",
         [kind(rng, "encoder self-attention", de, de, 6, 8),
          kind(rng, "decoder self-attention", en, en, 6, 8, masked=True),
          kind(rng, "cross-attention", en, de, 6, 8)], 10),
        ("lab", "inserted as JupyterLab inserts an output (2 layers x 2 heads, decoder self-attention)",
         [kind(rng, "decoder self-attention", en[:8], en[:8], 2, 2, masked=True)], 10),
    ]
    return explorers


def write(out_dir=None):
    out_dir = out_dir or os.path.join(ROOT, "target", "explorer-sample")
    os.makedirs(out_dir, exist_ok=True)
    script = "".join(open(path, encoding="utf-8").read() for path in SCRIPTS)
    explorers = build()
    parts, expected = [], []
    lab_html = None
    for uid, title, kinds, bits in explorers:
        html = explorer_html(uid, title, kinds, bits, script)
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
    return path


if __name__ == "__main__":
    path = write(sys.argv[1] if len(sys.argv) > 1 else None)
    print(f"{path}: {os.path.getsize(path)} bytes")
