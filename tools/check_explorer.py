"""Opens pages holding attention explorers in headless Chromium (Playwright driving Debian's
chromium), offline, and clicks through each explorer as a reader would:

- it mounts (its root gets `data-mount-ms`, the script's own performance.now() around the mount;
  over 1000 ms fails), its static heatmap is hidden, no script error, no request leaves the
  page's folder;
- for every kind: the layer select set to the last layer, the first query token hovered: the
  readout holds one weight per (shown head, key), each equal, to the printed decimals, to the
  weight decoded here from the page's own JSON; the visible lines are that row's only, one per
  nonzero weight of each shown head; leaving the token brings back the other rows' lines;
- the model view's last thumbnail clicked: the detail panel shows every query and key token, its
  cells hold that layer and head's weights (exact zeros white), and the head view switched to
  that layer and head;
- screenshots of the head view (a token hovered) and of the model view (a heatmap open), of the
  middle kind (the decoder's self-attention of a Transformer's three), into
  target/explorer-check/NAME-k-head.png and NAME-k-model.png (k: the explorer's index on the page).

Without arguments it checks the executed notebook pages that hold an explorer
(target/notebooks/*.html) and the synthetic page tools/explorer_sample.py writes (whose weights
it also compares with the sample's own sample.json). Prints a line per explorer; exits 1 on any
failure.

    python tools/check_explorer.py [PAGE.html...]
"""
import asyncio
import base64
import glob
import json
import os
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
    staticShown: !!st && visible(st),
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


async def check_page(browser, path, expected):
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
    for index, eid in enumerate(ids):
        want = (expected or {}).get(eid)
        try:
            kinds = await page.evaluate("(id) => JSON.parse(document.getElementById(id).querySelector('.zoo-explorer-data').textContent).kinds.length", eid)
            problems, summary, ms = await check_explorer(page, name, index, eid, want, kinds // 2)
        except Exception as e:  # a selector that never appears, a timeout: a failure of this explorer
            problems, summary, ms = [f"{type(e).__name__}: {str(e).splitlines()[0]}"], "", None
        if index == 0:
            if outside:
                problems.append(f"{len(outside)} requests outside the page's folder, e.g. {outside[0]}")
            if failed:
                problems.append(f"{len(failed)} local files missing, e.g. {failed[0]}")
        if errors:
            problems.append(f"script errors: {errors[:2]}")
            errors.clear()
        failures += bool(problems)
        status = "FAIL" if problems else "ok  "
        print(f"{status} {name} #{index} ({eid}): {summary}" + "".join(f"\n     {p}" for p in problems), flush=True)
        results.append(ms)
    if not ids:
        print(f"FAIL {name}: no explorer on the page", flush=True)
        failures += 1
    await page.close()
    return failures


async def main_async(pages, expected):
    from playwright.async_api import async_playwright

    os.makedirs(OUT, exist_ok=True)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium(), headless=True, args=FLAGS)
        failures = 0
        try:
            for path in pages:
                failures += await check_page(browser, path, expected.get(os.path.abspath(path)))
        finally:
            await browser.close()
    return 1 if failures else 0


def main(pages):
    expected = {}
    if not pages:
        import explorer_sample

        pages = [p for p in sorted(glob.glob(os.path.join(ROOT, "target", "notebooks", "*.html")))
                 if "zoo-explorer-data" in open(p, encoding="utf-8").read()]
        sample = explorer_sample.write()
        print(f"sample page {os.path.relpath(sample, ROOT)}: {os.path.getsize(sample)} bytes")
        pages.append(sample)
    for path in pages:
        beside = os.path.splitext(path)[0] + ".json"
        if os.path.basename(path) == "sample.html" and os.path.exists(beside):
            with open(beside, encoding="utf-8") as f:
                expected[os.path.abspath(path)] = {e["id"]: e for e in json.load(f)["explorers"]}
            if len(sys.argv) > 1:
                print(f"sample page {os.path.relpath(path, ROOT)}: {os.path.getsize(path)} bytes")
    return asyncio.run(main_async(pages, expected))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
