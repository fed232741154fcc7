"""Opens pages holding attention explorers in headless Chromium (Playwright driving Debian's
chromium), offline, and clicks through each explorer as a reader would:

- it mounts (its root gets `data-mount-ms`, the script's own performance.now() around the mount;
  over 1000 ms fails), its static heatmap and note are hidden, no script error, no request leaves
  the page's folder;
- for every kind: the layer select set to the last layer, the first query token hovered: the
  readout holds one weight per (shown head, key), each equal, to the printed decimals, to the
  weight decoded here from the page's own JSON; the visible lines are that row's only, one per
  nonzero weight of each shown head; leaving the token brings back the other rows' lines;
- the model view's last thumbnail clicked: the detail panel shows every query and key token, its
  cells hold that layer and head's weights (exact zeros white), and the head view switched to
  that layer and head;
- the neuron view, where an expected-values file (--expect, the format of the payload spec's
  "expected-values file") names the explorer: for every kind with neurons, at the last layer, the
  last head and the second query (pinned), every value cell (data-term left, right, product, dot,
  score, weight) equals the expected value to 3 decimals (|shown - expected| <= 0.0005 + 1e-6, the
  product left * right of the expected values), "masked" where the expected score is null; hovering
  the row of the key with the largest weight highlights exactly that one line in the head view;
  a kind without neurons shows its note;
- export, for one explorer per page (the first with several kinds, else the last): "SVG" and
  "PNG" of each view (head, model, neuron) downloaded into target/explorer-check/; each SVG opened
  standalone (file://: it parses, has shapes, no script error, no CSS variable nor currentColor,
  xmlns, width, height and viewBox), each PNG's signature and IHDR size read, and it opened as an
  image (naturalWidth > 0);
- keyboard, on the first explorer with several query tokens: Tab reaches a query token, the
  readout shows its row, ArrowDown moves the focus and the readout follows, Enter pins, Escape
  unpins;
- themes, last: <body> given JupyterLab's dark attribute (data-jp-theme-light="false") and dark
  --jp-* variables: every explorer turns dark (its MutationObserver), its text is light, and no
  button or select reads dark on dark (contrast under 3); the neuron view screenshotted light and
  dark (target/explorer-check/NAME-neurons-light.png, -dark.png);
- screenshots of the head view (a token hovered) and of the model view (a heatmap open), of the
  middle kind (the decoder's self-attention of a Transformer's three), into
  target/explorer-check/NAME-k-head.png and NAME-k-model.png (k: the explorer's index on the page).

Without arguments it checks the executed notebook pages that hold an explorer
(target/notebooks/*.html) and the synthetic page tools/explorer_sample.py writes (whose weights
it also compares with the sample's own sample.json, and whose neuron view with neurons.json, both
beside it). Prints a line per explorer; exits 1 on any failure.

    python tools/check_explorer.py [PAGE.html...] [--expect NEURONS.json]

--expect FILE: the neuron view's expected values for the pages given (by explorer id); without
it, a page named sample.html uses the neurons.json beside it.

--self-test-broken: proves that a broken explorer is caught. It writes copies of the sample page
(target/explorer-sample/broken-*.html) whose script lacks one function (the neuron view's
drawNeurons, the head view's drawLines: each made to return at once), runs the same checks on each
and exits 0 only if every copy FAILS them (1 if any passes).
"""
import argparse
import asyncio
import base64
import glob
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "explorer-check")
MOUNT_LIMIT_MS = 1000

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_pages import FLAGS, chromium, offline_page  # noqa: E402  (the same browser, offline)


def decode(data):
    """Each kind's weights as integers over `scale`, as the script decodes them: value i at bit
    `bits * i`, least significant bit first (bits 16, the default: little-endian u16)."""
    bits, scale = data.get("bits", 16), data.get("scale", 65535)
    kinds = []
    for k in data["kinds"]:
        n = k["layers"] * k["heads"] * len(k["rows"]) * len(k["cols"])
        raw = base64.b64decode(k["weights"])
        if bits == 16:
            q = list(struct.unpack(f"<{n}H", raw[: 2 * n]))
        else:
            big = int.from_bytes(raw, "little")
            mask = (1 << bits) - 1
            q = [(big >> (bits * i)) & mask for i in range(n)]
        kinds.append(q)
    return bits, scale, kinds


# What one explorer shows now: readout, visible lines, head chips, layer, detail panel.
STATE = """(id) => {
  const root = document.getElementById(id);
  // (Chromium's checkVisibility calls a line inside a display:none SVG group visible; it has no box)
  const visible = e => e.getClientRects().length > 0 && (!e.checkVisibility || e.checkVisibility({checkVisibilityCSS: true}));
  const st = root.querySelector(".zoo-explorer-static");
  return {
    staticShown: !!st && visible(st) || [...root.querySelectorAll(".zoo-explorer-note")].some(visible),
    layer: root.querySelector("select.zoo-explorer-layer").value,
    heads: [...root.querySelectorAll(".zoo-explorer-head")].filter(b => b.getAttribute("aria-pressed") === "true").map(b => +b.dataset.head),
    readout: [...root.querySelectorAll(".zoo-explorer-readout [data-weight]")].map(e => [+e.dataset.head, +e.dataset.col, e.dataset.weight, e.textContent]),
    lines: [...root.querySelectorAll("svg.zoo-explorer-lines line[data-row]")].filter(visible).map(l => [+l.dataset.head, +l.dataset.row, +l.dataset.col, l.dataset.weight]),
    detailRows: [...root.querySelectorAll(".zoo-explorer-detail .zoo-explorer-label[data-side=row]")].filter(visible).map(e => e.textContent),
    detailCols: [...root.querySelectorAll(".zoo-explorer-detail .zoo-explorer-label[data-side=col]")].filter(visible).map(e => e.textContent),
    detailCells: [...root.querySelectorAll(".zoo-explorer-detail .zoo-explorer-cell")].map(e => [+e.dataset.row, +e.dataset.col, e.dataset.weight, getComputedStyle(e).backgroundColor]),
  };
}"""

# The colour of a thumbnail's canvas at a cell.
PIXEL = """([id, layer, head, row, col]) => {
  const c = document.getElementById(id).querySelector(`canvas[data-layer="${layer}"][data-head="${head}"]`);
  return [...c.getContext("2d").getImageData(col, row, 1, 1).data];
}"""


async def check_explorer(page, name, index, eid, expected, kind_shot):
    """Problems found in one explorer, and a summary."""
    problems = []
    root = f'[id="{eid}"]'
    info = await page.evaluate("""(id) => {
      const r = document.getElementById(id);
      return {ms: r.getAttribute("data-mount-ms"), error: r.getAttribute("data-mount-error"),
              json: r.querySelector(".zoo-explorer-data").textContent};
    }""", eid)
    if info["error"] or info["ms"] is None:
        return [f"did not mount: {info['error']}"], "", None
    ms = float(info["ms"])
    if ms > MOUNT_LIMIT_MS:
        problems.append(f"mounted in {ms:.0f} ms, over {MOUNT_LIMIT_MS} ms")
    data = json.loads(info["json"])
    bits, scale, kinds = decode(data)
    dec = data.get("decimals", 3)
    fmt = lambda q: f"{q / scale:.{dec}f}"
    if expected:
        for k, (q, want) in enumerate(zip(kinds, expected["kinds"])):
            bad = [i for i, (a, w) in enumerate(zip(q, want["weights"])) if abs(a / scale - w) > 0.5 / scale + 2e-6]
            if bad or len(q) != len(want["weights"]):
                problems.append(f"kind {k}: the page's JSON decodes to other weights than the sample's ({len(bad)} differ)")
    summary = []
    for k, spec in enumerate(data["kinds"]):
        q = kinds[k]
        R, C, L, H = len(spec["rows"]), len(spec["cols"]), spec["layers"], spec["heads"]
        at = lambda l, h, r, c: q[((l * H + h) * R + r) * C + c]
        where = f"{spec['name']}: "
        if len(data["kinds"]) > 1:
            await page.click(f'{root} .zoo-explorer-kind[data-kind="{k}"]')
        last = L - 1
        if L > 1:  # (one layer: the select is disabled, at layer 0)
            await page.select_option(f"{root} select.zoo-explorer-layer", str(last))
        await page.locator(f"{root} .zoo-explorer-headview").scroll_into_view_if_needed()
        await page.hover(f'{root} .zoo-explorer-token[data-side="row"][data-index="0"]')
        s = await page.evaluate(STATE, eid)
        if s["staticShown"]:
            problems.append("the static heatmap is still shown")
        if s["layer"] != str(last):
            problems.append(f"{where}layer select reads {s['layer']}, not {last}")
        heads = s["heads"]
        if not heads:
            problems.append(f"{where}no head shown")
        want = {(h, c): fmt(at(last, h, 0, c)) for h in heads for c in range(C)}
        got = {(h, c): w for h, c, w, _ in s["readout"]}
        if len(s["readout"]) != len(want) or got != want:
            wrong = [(hc, got.get(hc), w) for hc, w in want.items() if got.get(hc) != w]
            problems.append(f"{where}readout holds {len(s['readout'])} weights, {len(want)} wanted; {len(wrong)} differ, e.g. {wrong[:2]}")
        texts = [t for _, _, _, t in s["readout"]]
        for h, c, w, t in s["readout"][:3]:
            if t.replace("\u00a0", " ").strip() != f"head {h}: {spec['cols'][c]} {w}":
                problems.append(f"{where}readout text {t!r} is not 'head {h}: {spec['cols'][c]} {w}'")
                break
        rows = {r for _, r, _, _ in s["lines"]}
        want_lines = {(h, 0, c): fmt(at(last, h, 0, c)) for h in heads for c in range(C) if at(last, h, 0, c) > 0}
        got_lines = {(h, r, c): w for h, r, c, w in s["lines"]}
        if rows - {0}:
            problems.append(f"{where}lines of rows {sorted(rows - {0})[:5]} visible while row 0 is focused")
        if got_lines != want_lines:
            problems.append(f"{where}{len(got_lines)} lines of row 0 visible, {len(want_lines)} wanted (one per nonzero weight of each shown head), or their weights differ")
        focused = len(s["lines"])
        await page.mouse.move(0, 0)
        s = await page.evaluate(STATE, eid)
        rows = {r for _, r, _, _ in s["lines"]}
        if R > 1 and len(rows) < 2:
            problems.append(f"{where}leaving the token does not bring back the other rows' lines (rows {sorted(rows)[:5]})")
        if any(h not in heads for h, _, _, _ in s["lines"]):
            problems.append(f"{where}lines of a hidden head visible")
        all_lines = len(s["lines"])
        if k == kind_shot:  # a middle token pinned (a click), so that scrolling moves no focus
            token = page.locator(f'{root} .zoo-explorer-token[data-side="row"][data-index="{R // 2}"]')
            await token.click()
            await page.locator(f"{root} .zoo-explorer-headview").screenshot(path=os.path.join(OUT, f"{name}-{index}-head.png"))
            await token.click()
            await page.mouse.move(0, 0)
        # the model view's last thumbnail
        tl, th = L - 1, H - 1
        await page.click(f'{root} canvas[data-layer="{tl}"][data-head="{th}"]')
        s = await page.evaluate(STATE, eid)
        if s["detailRows"] != spec["rows"] or s["detailCols"] != spec["cols"]:
            problems.append(f"{where}detail labels {len(s['detailRows'])} rows x {len(s['detailCols'])} cols, not every token ({R} x {C})")
        cells = {(r, c): (w, bg) for r, c, w, bg in s["detailCells"]}
        bad = [(r, c) for r in range(R) for c in range(C) if (r, c) not in cells or cells[(r, c)][0] != fmt(at(tl, th, r, c))]
        if bad:
            problems.append(f"{where}detail cells of layer {tl} head {th}: {len(bad)} of {R * C} wrong or missing, e.g. {bad[:2]}")
        zeros = [(r, c) for r in range(R) for c in range(C) if at(tl, th, r, c) == 0]
        if zeros:
            r, c = zeros[-1]
            if cells.get((r, c), (0, ""))[1] != "rgb(255, 255, 255)":
                problems.append(f"{where}exact zero at ({r}, {c}) not white in the detail: {cells.get((r, c))}")
            px = await page.evaluate(PIXEL, [eid, tl, th, r, c])
            if px[:3] != [255, 255, 255]:
                problems.append(f"{where}exact zero at ({r}, {c}) not white in the thumbnail: {px}")
        if s["layer"] != str(tl) or s["heads"] != [th]:
            problems.append(f"{where}clicking layer {tl} head {th} left the head view at layer {s['layer']}, heads {s['heads']}")
        if k == kind_shot:
            await page.locator(f"{root} .zoo-explorer-model").screenshot(path=os.path.join(OUT, f"{name}-{index}-model.png"))
        # show every head again for the next kind
        for h in range(H):
            if h != th:
                await page.click(f'{root} .zoo-explorer-head[data-head="{h}"]')
        summary.append(f"{spec['name']} {L}x{H} {R}x{C}: {focused} lines focused, {all_lines} in all, {len(zeros)} zeros")
    return problems, f"mounted in {ms:.1f} ms; " + "; ".join(summary), ms


# The neuron view's value cells: [term, key or null, dim or null, value] and what it says it shows.
NEURON_CELLS = """(id) => {
  const root = document.getElementById(id);
  return [...root.querySelectorAll(".zoo-explorer-neurons [data-term]")].map(e => [
    e.dataset.term, e.dataset.key == null ? null : +e.dataset.key, e.dataset.dim == null ? null : +e.dataset.dim, e.dataset.value]);
}"""

HIGHLIGHTS = """(id) => [...document.getElementById(id).querySelectorAll("svg.zoo-explorer-lines .zoo-explorer-hl")]
  .filter(e => e.getClientRects().length > 0).map(e => [+e.dataset.hlHead, +e.dataset.hlRow, +e.dataset.hlCol])"""


def close(shown, want):
    try:
        return abs(float(shown) - want) <= 0.0005 + 1e-6
    except (TypeError, ValueError):
        return False


async def check_neurons(page, eid, expect):
    """The neuron view of every kind against the expected values (a list per kind, None where a
    kind has no neurons): problems and a summary."""
    problems, summary, root = [], [], f'[id="{eid}"]'
    data = json.loads(await page.evaluate("(id) => document.getElementById(id).querySelector('.zoo-explorer-data').textContent", eid))
    if len(expect) != len(data["kinds"]):
        return [f"neurons: the expected file has {len(expect)} kinds, the page {len(data['kinds'])}"], ""
    for k, (spec, want) in enumerate(zip(data["kinds"], expect)):
        where = f"{spec['name']}: neuron view: "
        if len(data["kinds"]) > 1:
            await page.click(f'{root} .zoo-explorer-kind[data-kind="{k}"]')
        if want is None:
            has = await page.evaluate("(id) => !!document.getElementById(id).querySelector('svg.zoo-explorer-neuron')", eid)
            note = await page.locator(f"{root} .zoo-explorer-neurons").inner_text()
            if spec.get("neurons") or has or "no score terms" not in note:
                problems.append(f"{where}a kind without neurons shows {'an SVG' if has else repr(note[:80])}")
            summary.append(f"{spec['name']}: no neurons (note shown)")
            continue
        n = spec.get("neurons")
        if not n:
            problems.append(f"{where}the expected file has neurons, the page's payload none")
            continue
        L, H, R, C = len(want["weights"]), len(want["weights"][0]), len(spec["rows"]), len(spec["cols"])
        l, h, r = L - 1, H - 1, min(1, R - 1)
        if L > 1:
            await page.select_option(f"{root} select.zoo-explorer-layer", str(l))
        if H > 1:
            await page.select_option(f"{root} select.zoo-explorer-nhead", str(h))
        token = page.locator(f'{root} .zoo-explorer-token[data-side="row"][data-index="{r}"]')
        await token.click()  # pins the query
        cells = await page.evaluate(NEURON_CELLS, eid)
        left = want["left"][l][h][r if n["left"]["per_query"] else 0]
        rights = want["right"][l][h][r] if n["right"]["per_query"] else want["right"][l][h]
        dim = len(left)
        expected = {("left", None, d): left[d] for d in range(dim)}
        for j in range(C):
            for d in range(dim):
                expected[("right", j, d)] = rights[j][d]
                expected[("product", j, d)] = left[d] * rights[j][d]
            expected[("dot", j, None)] = want["dots"][l][h][r][j]
            expected[("score", j, None)] = want["scores"][l][h][r][j]
            expected[("weight", j, None)] = want["weights"][l][h][r][j]
        got = {}
        for term, key, d, value in cells:
            if (term, key, d) in got:
                problems.append(f"{where}two cells for {(term, key, d)}")
            got[(term, key, d)] = value
        wrong = []
        for at, w in expected.items():
            v = got.get(at)
            ok = v == "masked" if w is None else close(v, w)
            if not ok:
                wrong.append((at, v, w))
        extra = set(got) - set(expected)
        if wrong or extra:
            problems.append(f"{where}layer {l} head {h} query {r}: {len(wrong)} of {len(expected)} cells wrong or missing, "
                            f"{len(extra)} unexpected, e.g. {wrong[:2] or sorted(extra, key=str)[:2]}")
        masked = sum(1 for j in range(C) if want["scores"][l][h][r][j] is None)
        if not cells:
            await token.click()
            continue
        # hovering the row of the key with the largest weight highlights that one line
        j = max(range(C), key=lambda c: want["weights"][l][h][r][c])
        await page.hover(f'{root} .zoo-explorer-nrow[data-key="{j}"]')
        hl = await page.evaluate(HIGHLIGHTS, eid)
        if hl != [[h, r, j]]:
            problems.append(f"{where}hovering key {j}'s row highlights {hl} in the head view, not the one line {[h, r, j]}")
        await page.mouse.move(0, 0)
        if await page.evaluate(HIGHLIGHTS, eid):
            problems.append(f"{where}the highlight stays after the mouse left")
        await token.click()  # unpins
        summary.append(f"{spec['name']}: {len(expected)} neuron cells at layer {l} head {h} query {r} ({masked} masked)")
    return problems, "; ".join(summary)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def open_alone(browser, path):
    """Opens a saved file by itself (file://): its script errors, and what it shows."""
    page = await browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    await page.goto("file://" + path)
    info = await page.evaluate("""() => ({
      root: document.documentElement.tagName,
      shapes: document.querySelectorAll("rect, path, line, text, circle, polygon").length,
      img: document.images.length ? document.images[0].naturalWidth : null,
      error: !!document.querySelector("parsererror")})""")
    await page.close()
    return info, errors


async def check_export(browser, page, name, eid):
    """Each view's SVG and PNG of one explorer, downloaded and opened alone: problems, summary."""
    problems, files, root = [], [], f'[id="{eid}"]'
    data = json.loads(await page.evaluate("(id) => document.getElementById(id).querySelector('.zoo-explorer-data').textContent", eid))
    with_neurons = [k for k, spec in enumerate(data["kinds"]) if spec.get("neurons")]
    for view in ("head", "model", "neuron"):
        has = await page.evaluate("(id) => !!document.getElementById(id).querySelector('svg.zoo-explorer-neuron')", eid)
        if view == "neuron" and not has:
            if not with_neurons:
                files.append("(no neuron view: no kind has neurons)")
                continue
            await page.click(f'{root} .zoo-explorer-kind[data-kind="{with_neurons[0]}"]')
        await page.select_option(f"{root} select.zoo-explorer-view", view)
        for kind in ("svg", "png"):
            async with page.expect_download(timeout=15_000) as info:
                await page.click(f'{root} button[data-export="{kind}"]')
            dl = await info.value
            fname = dl.suggested_filename
            path = os.path.join(OUT, f"{name}-{fname}")
            await dl.save_as(path)
            size = os.path.getsize(path)
            files.append(f"{os.path.relpath(path, ROOT)} ({size} bytes)")
            if not re.fullmatch(rf"attention-[a-z0-9-]+-layer\d+-head[0-9+a-z]+-{view}\.{kind}", fname):
                problems.append(f"export: file name {fname!r} is not attention-<kind>-layer<l>-head<h>-{view}.{kind}")
            opened, errors = await open_alone(browser, path)
            if errors:
                problems.append(f"export: {fname} opened alone: errors {errors[:2]}")
            if kind == "svg":
                text = open(path, encoding="utf-8").read()
                tag = text[: text.index(">") + 1] if ">" in text else text[:200]
                for attr in ('xmlns="http://www.w3.org/2000/svg"', "width=", "height=", "viewBox="):
                    if attr not in tag:
                        problems.append(f"export: {fname}'s <svg> lacks {attr}")
                if "var(" in text or "currentcolor" in text.lower():
                    problems.append(f"export: {fname} still holds a CSS variable or currentColor")
                if opened["root"].lower() != "svg" or opened["error"] or opened["shapes"] < 3:
                    problems.append(f"export: {fname} opened alone: root {opened['root']}, {opened['shapes']} shapes, parse error {opened['error']}")
            else:
                data = open(path, "rb").read()
                if data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR":
                    problems.append(f"export: {fname} is not a PNG (starts {data[:16]!r})")
                    continue
                w, h = struct.unpack(">II", data[16:24])
                files[-1] = files[-1][:-1] + f", {w} x {h})"
                if not (w > 0 and h > 0) or not opened["img"]:
                    problems.append(f"export: {fname}: IHDR {w} x {h}, naturalWidth {opened['img']}")
    return problems, files


async def check_keyboard(page, eid, rows):
    """Tab to a query token, the arrow keys, Enter and Escape: problems."""
    root, problems = f'[id="{eid}"]', []
    active = """(id) => { const a = document.activeElement, r = document.getElementById(id);
      const ro = [...r.querySelectorAll(".zoo-explorer-readout [data-row]")].map(e => +e.dataset.row);
      return {token: !!a && r.contains(a) && a.matches(".zoo-explorer-token[data-side=row]") ? +a.dataset.index : null,
              pinned: !!a && a.classList.contains("zoo-explorer-pinned"), rows: [...new Set(ro)]}; }"""
    await page.mouse.move(0, 0)
    await page.focus(f"{root} select.zoo-explorer-layer")
    state = None
    for _ in range(60):
        await page.keyboard.press("Tab")
        state = await page.evaluate(active, eid)
        if state["token"] is not None:
            break
    if state is None or state["token"] is None:
        return ["keyboard: Tab never reaches a query token"]
    i = state["token"]
    if state["rows"] != [i]:
        problems.append(f"keyboard: query {i} focused, the readout shows rows {state['rows']}")
    await page.keyboard.press("ArrowDown" if i + 1 < rows else "ArrowUp")
    j = i + 1 if i + 1 < rows else i - 1
    state = await page.evaluate(active, eid)
    if state["token"] != j or state["rows"] != [j]:
        problems.append(f"keyboard: after an arrow key the focus is on {state['token']}, the readout on {state['rows']}, not {j}")
    await page.keyboard.press("Enter")
    if not (await page.evaluate(active, eid))["pinned"]:
        problems.append("keyboard: Enter does not pin the query")
    await page.keyboard.press("Escape")
    if (await page.evaluate(active, eid))["pinned"]:
        problems.append("keyboard: Escape does not unpin the query")
    await page.keyboard.press("Escape")
    await page.evaluate("() => document.activeElement && document.activeElement.blur()")
    return problems


DARK = """() => {
  const b = document.body, vars = {"--jp-ui-font-color1": "rgba(255, 255, 255, 0.87)", "--jp-ui-font-color2": "rgba(255, 255, 255, 0.54)",
    "--jp-layout-color1": "#111111", "--jp-layout-color2": "#2c2c2c", "--jp-border-color1": "#616161"};
  for (const [k, v] of Object.entries(vars)) b.style.setProperty(k, v);
  b.style.background = "#111111";
  b.style.color = "rgba(255, 255, 255, 0.87)";
  b.setAttribute("data-jp-theme-light", "false");
}"""

# Each explorer's theme, text colour, and its buttons and selects whose text reads against their
# background (the first opaque one up the tree) with a contrast under 3.
CONTRAST = """() => {
  const rgb = c => { const m = /rgba?\\(([^)]*)\\)/.exec(c); if (!m) return null; const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return p.length > 3 && p[3] === 0 ? null : p; };
  const lum = p => { const l = p.slice(0, 3).map(v => v / 255 <= 0.03928 ? v / 255 / 12.92 : Math.pow((v / 255 + 0.055) / 1.055, 2.4)); return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
  const bgOf = e => { for (; e; e = e.parentElement) { const p = rgb(getComputedStyle(e).backgroundColor); if (p) return p; } return [255, 255, 255]; };
  return [...document.querySelectorAll(".zoo-explorer")].map(r => {
    const ui = r.querySelector(".zoo-explorer-ui");
    const bad = [...ui.querySelectorAll("button, select")].map(e => {
      const f = rgb(getComputedStyle(e).color), b = bgOf(e), a = lum(f), c = lum(b);
      return [e.textContent.slice(0, 20), (Math.max(a, c) + 0.05) / (Math.min(a, c) + 0.05)];
    }).filter(x => x[1] < 3);
    return {id: r.id, theme: r.getAttribute("data-zoo-theme"), text: lum(rgb(getComputedStyle(ui).color)), bad: bad.slice(0, 3)};
  });
}"""


async def check_themes(page, name, shot_id):
    problems = []
    neurons = page.locator(f'[id="{shot_id}"] .zoo-explorer-neurons') if shot_id else None
    if neurons:
        await neurons.screenshot(path=os.path.join(OUT, f"{name}-neurons-light.png"))
    light = await page.evaluate(CONTRAST)
    await page.evaluate(DARK)
    await page.wait_for_timeout(100)
    dark = await page.evaluate(CONTRAST)
    for e in light:
        if e["bad"]:
            problems.append(f"theme light: {e['id']}: low contrast {e['bad']}")
    for e in dark:
        if e["theme"] != "dark":
            problems.append(f"theme dark: {e['id']} did not turn dark (data-zoo-theme {e['theme']})")
        if e["text"] < 0.5:
            problems.append(f"theme dark: {e['id']}: text luminance {e['text']:.2f}, not light")
        if e["bad"]:
            problems.append(f"theme dark: {e['id']}: dark on dark {e['bad']}")
    if neurons:
        await neurons.screenshot(path=os.path.join(OUT, f"{name}-neurons-dark.png"))
    return problems


async def check_page(browser, path, expected, neurons):
    name = os.path.splitext(os.path.basename(path))[0]
    page, outside, failed = await offline_page(browser, path, {"width": 1280, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto("file://" + os.path.abspath(path))
    await page.wait_for_timeout(400)  # outputs inserted after load (the sample's Lab-style one)
    await page.wait_for_function("""() => [...document.querySelectorAll(".zoo-explorer")]
        .every(r => r.hasAttribute("data-mount-ms") || r.hasAttribute("data-mount-error"))""", timeout=30_000)
    ids = await page.evaluate("() => [...document.querySelectorAll('.zoo-explorer')].map(r => r.id)")
    results, failures = [], 0

    def report(label, problems, summary):
        nonlocal failures
        if errors:
            problems.append(f"script errors: {errors[:2]}")
            errors.clear()
        failures += bool(problems)
        status = "FAIL" if problems else "ok  "
        print(f"{status} {name} {label}: {summary}" + "".join(f"\n     {p}" for p in problems), flush=True)

    shapes = {}
    for index, eid in enumerate(ids):
        want = (expected or {}).get(eid)
        try:
            data = json.loads(await page.evaluate("(id) => document.getElementById(id).querySelector('.zoo-explorer-data').textContent", eid))
            shapes[eid] = (len(data["kinds"]), len(data["kinds"][0]["rows"]), any(k.get("neurons") for k in data["kinds"]))
            problems, summary, ms = await check_explorer(page, name, index, eid, want, len(data["kinds"]) // 2)
            if eid in (neurons or {}):
                p, s = await check_neurons(page, eid, neurons[eid])
                problems += p
                summary += "; " + s
        except Exception as e:  # a selector that never appears, a timeout: a failure of this explorer
            problems, summary, ms = [f"{type(e).__name__}: {str(e).splitlines()[0]}"], "", None
        if index == 0:
            if outside:
                problems.append(f"{len(outside)} requests outside the page's folder, e.g. {outside[0]}")
            if failed:
                problems.append(f"{len(failed)} local files missing, e.g. {failed[0]}")
        report(f"#{index} ({eid})", problems, summary)
        results.append(ms)
    if not ids:
        print(f"FAIL {name}: no explorer on the page", flush=True)
        failures += 1
    else:
        several = [i for i in ids if shapes.get(i, (0,))[0] > 1]
        target = several[0] if several else ids[-1]
        try:
            problems, files = await check_export(browser, page, name, target)
        except Exception as e:
            problems, files = [f"export: {type(e).__name__}: {str(e).splitlines()[0]}"], []
        report(f"export ({target})", problems, ", ".join(files))
        tokens = [i for i in ids if shapes.get(i, (0, 0))[1] > 2]
        if tokens:
            try:
                problems = await check_keyboard(page, tokens[0], shapes[tokens[0]][1])
            except Exception as e:
                problems = [f"keyboard: {type(e).__name__}: {str(e).splitlines()[0]}"]
            report(f"keyboard ({tokens[0]})", problems, "Tab, ArrowDown, Enter, Escape")
        with_neurons = [i for i in ids if shapes.get(i, (0, 0, False))[2]]
        try:
            problems = await check_themes(page, name, (several + with_neurons or [None])[0])
        except Exception as e:
            problems = [f"themes: {type(e).__name__}: {str(e).splitlines()[0]}"]
        report("themes", problems, "light, then JupyterLab's dark attribute and variables")
    await page.close()
    return failures


async def main_async(pages, expected, neurons):
    from playwright.async_api import async_playwright

    os.makedirs(OUT, exist_ok=True)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium(), headless=True, args=FLAGS)
        failures = 0
        try:
            for path in pages:
                key = os.path.abspath(path)
                failures += await check_page(browser, path, expected.get(key), neurons.get(key))
        finally:
            await browser.close()
    return 1 if failures else 0


def load_neurons(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


BROKEN = [  # (the function, its definition's first line in the script)
    ("drawNeurons", "P.drawNeurons = function () {"),
    ("drawLines", "P.drawLines = function () {"),
]


def self_test_broken():
    """Copies of the sample page, each with one function emptied; 0 only if the checks fail each."""
    import explorer_sample

    sample = explorer_sample.write()
    folder = os.path.dirname(sample)
    want = load_neurons(os.path.join(folder, "neurons.json"))
    html = open(sample, encoding="utf-8").read()
    caught = 0
    for fn, line in BROKEN:
        if line not in html:
            print(f"self-test: {fn}'s definition ({line!r}) not found in the page's script")
            return 1
        broken = html.replace(line, line + " return; }; P.zooRemoved_" + fn + " = function () {")  # (no newline: one copy is in a JSON string)
        path = os.path.join(folder, f"broken-{fn}.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(broken)
        print(f"self-test: {os.path.relpath(path, ROOT)}, {fn} removed: the checks must fail", flush=True)
        rc = asyncio.run(main_async([path], {}, {os.path.abspath(path): want}))
        caught += rc != 0
        print(f"self-test: {fn} removed: {'caught' if rc else 'NOT CAUGHT'}", flush=True)
    print(f"self-test: {caught} of {len(BROKEN)} broken explorers caught")
    return 0 if caught == len(BROKEN) else 1


def main(argv):
    ap = argparse.ArgumentParser(description="Clicks through the attention explorers of pages in headless Chromium.")
    ap.add_argument("pages", nargs="*", help="pages holding explorers (default: the executed notebooks and the sample)")
    ap.add_argument("--expect", help="the neuron view's expected values (JSON by explorer id) for the pages given")
    ap.add_argument("--self-test-broken", action="store_true", help="exit 0 only if explorers with a function removed fail the checks")
    args = ap.parse_args(argv)
    if args.self_test_broken:
        return self_test_broken()
    pages, expected, neurons = list(args.pages), {}, {}
    if not pages:
        import explorer_sample

        pages = [p for p in sorted(glob.glob(os.path.join(ROOT, "target", "notebooks", "*.html")))
                 if "zoo-explorer-data" in open(p, encoding="utf-8").read()]
        sample = explorer_sample.write()
        print(f"sample page {os.path.relpath(sample, ROOT)}: {os.path.getsize(sample)} bytes")
        pages.append(sample)
    given = load_neurons(args.expect) if args.expect else None
    for path in pages:
        key = os.path.abspath(path)
        beside = os.path.splitext(path)[0] + ".json"
        if os.path.basename(path) == "sample.html" and os.path.exists(beside):
            with open(beside, encoding="utf-8") as f:
                expected[key] = {e["id"]: e for e in json.load(f)["explorers"]}
            if args.pages:
                print(f"sample page {os.path.relpath(path, ROOT)}: {os.path.getsize(path)} bytes")
        if given is not None:
            neurons[key] = given
        elif os.path.basename(path) == "sample.html" and os.path.exists(os.path.join(os.path.dirname(path), "neurons.json")):
            neurons[key] = load_neurons(os.path.join(os.path.dirname(path), "neurons.json"))
    return asyncio.run(main_async(pages, expected, neurons))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
