"""Opens each executed notebook page (target/notebooks/*.html, and exercises/*.html) in headless Chromium (Playwright
driving Debian's chromium), offline, and checks what a reader sees:

- every formula typeset by the local MathJax (no `$$` left as raw text, no MathJax error), in
  MathJax's own STIX web fonts: a variable in a formula drawn in the italic face, no formula in a
  fallback font (the system's, which MathJax uses when its font files are missing);
- every architecture diagram drawn, and every lecture class cell's code shown beside it (a
  highlighted box of the struct and its methods; NAME-class.png is a screenshot of the first);
- every code cell of a notebook that mirrors the lecture opening with its reference
  (`// lecture 000#37 ...` or `// ours, ...`), and the link to the primer in 00 landing on its
  heading;
- no request leaving the page's folder (a CDN script, a web font) and no local file missing;
- on an exercise notebook's pages (target/notebooks/exercises/), every check's outcome drawn as a
  box saying Not attempted (NAME.html, the students' version) or Correct (NAME.source.html, its
  source: the crate's solutions, each check cell graded), and the progress table drawn.

Writes a screenshot of each page's top beside it (NAME.png). `make pages-check` runs it after
`make notebooks`.

    python tools/check_pages.py [PAGE.html...]
"""
import asyncio
import base64
import glob
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# What the page reports once MathJax has finished: formulas, errors, fonts, diagrams.
INSPECT = """() => {
  const html = window.MathJax && MathJax.OutputJax && MathJax.OutputJax["HTML-CSS"];
  // Every one-letter variable MathJax draws in italic (an <mi> whose mathvariant is italic): the
  // face it was drawn in. \\mathrm, \\text and operator names are upright by design, not counted.
  let italic = 0;
  const upright = [];
  const walk = (node) => {
    if (!node || typeof node !== "object") return;
    if (node.type === "mi") {
      const text = (node.data || []).map(c => c && c.data ? c.data.join("") : "").join("");
      if (/^[A-Za-z]$/.test(text) && node.Get("mathvariant") === "italic") {
        italic++;
        const span = node.HTMLspanElement && node.HTMLspanElement();
        const family = span ? getComputedStyle(span).fontFamily : "(not drawn)";
        if (!/STIXMathJax_.*italic/i.test(family)) upright.push(text + " in " + family);
      }
    }
    (node.data || []).forEach(walk);
  };
  if (window.MathJax && MathJax.Hub.getAllJax) MathJax.Hub.getAllJax().forEach(j => walk(j.root));
  const text = document.body.innerText;
  return {
    typeset: document.querySelectorAll(".MathJax, .MathJax_Display").length,
    fontInUse: html ? html.fontInUse : null,
    italic: italic,
    upright: upright,
    raw: (text.match(/\\$\\$[^$]+\\$\\$/g) || []).map(s => s.slice(0, 60)),
    errors: document.body.innerHTML.includes("Math Processing Error"),
    svgs: [...document.querySelectorAll("img")].map(i => i.src).filter(s => s.startsWith("data:image/svg+xml;base64,")),
    asked: (text.match(/(draw|show_class)\\(Architecture/g) || []).length,
    inline: [...document.querySelectorAll(".zoo-class-diagram svg")].filter(s => s.querySelector('marker[id^="arrowhead-"]') && s.getBoundingClientRect().height > 0).length,
    classes: [...document.querySelectorAll(".zoo-class")].map(c => {
      const code = c.querySelector(".zoo-class-code pre");
      return { lines: code ? code.innerText.split("\\n").length : 0, coloured: code ? code.querySelectorAll("span[style]").length : 0,
               height: code ? code.getBoundingClientRect().height : 0 };
    }),
    inputs: [...document.querySelectorAll(".jp-CodeCell .jp-InputArea-editor")].map(e => e.innerText.split("\\n")[0]),
    primer: [...document.querySelectorAll("a")].map(a => a.getAttribute("href") || "").filter(h => h.includes("Rust-for-Python-readers")),
    primerHeading: !!document.getElementById("Rust-for-Python-readers"),
    verdicts: [...document.querySelectorAll(".zoo-outcome")].filter(e => e.getBoundingClientRect().height > 0).map(e => e.dataset.verdict),
    progress: [...document.querySelectorAll("table.zoo-progress")].filter(t => t.querySelectorAll("tr").length > 1).length,
  };
}"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("check_pages: no Chromium found (Debian: apt-get install chromium)")


async def offline_page(browser, page_path, viewport):
    """A new page that may load only files from `page_path`'s folder: returns it with the lists of
    the requests it refused (`outside`) and of the local files that failed to load (`failed`)."""
    folder = os.path.dirname(os.path.abspath(page_path))
    page = await browser.new_page(viewport=viewport)
    outside, failed = [], []

    async def route(r):
        url = r.request.url
        if url.startswith("data:") or (url.startswith("file://") and os.path.abspath(url[7:].split("?")[0]).startswith(folder)):
            await r.continue_()
        else:
            outside.append(url)
            await r.abort()

    await page.route("**/*", route)
    page.on("requestfailed", lambda r: failed.append(r.url) if r.url not in outside and not r.url.startswith("about:") else None)
    return page, outside, failed


async def check(browser, page_path):
    page, outside, failed = await offline_page(browser, page_path, {"width": 1100, "height": 1400})
    await page.goto("file://" + os.path.abspath(page_path))
    await page.wait_for_function("() => window.MathJax && MathJax.Hub && MathJax.Hub.queue && MathJax.Hub.queue.pending === 0 && !MathJax.Hub.queue.running", timeout=60_000)
    await page.evaluate("() => new Promise(done => MathJax.Hub.Queue(done))")
    found = await page.evaluate(INSPECT)
    problems = []
    if found["raw"]:
        problems.append(f"{len(found['raw'])} formulas left as raw text, e.g. {found['raw'][0]!r}")
    if found["errors"]:
        problems.append("MathJax reported a processing error")
    if found["typeset"] and found["fontInUse"] != "STIX-Web":
        problems.append(f"formulas in a fallback font: MathJax's font in use is {found['fontInUse']!r}, not its STIX-Web")
    if found["upright"]:
        problems.append(f"{len(found['upright'])} of {found['italic']} variables not in STIX italic, e.g. {found['upright'][0]}")
    if outside:
        problems.append(f"{len(outside)} requests outside the page's folder, e.g. {outside[0]}")
    if failed:
        problems.append(f"{len(failed)} local files missing, e.g. {failed[0]}")
    svgs = [base64.b64decode(s.split(",", 1)[1]).decode("utf-8", "replace") for s in found["svgs"]]
    diagrams = sum('<marker id="arrowhead-' in svg for svg in svgs) + found["inline"]
    if diagrams < found["asked"]:
        problems.append(f"{found['asked']} cells draw an architecture but {diagrams} diagrams are on the page")
    for k, c in enumerate(found["classes"]):
        if c["lines"] < 3 or c["coloured"] < 5 or c["height"] < 40:
            problems.append(f"class cell {k + 1} shows no readable code ({c})")
    name = os.path.basename(page_path)
    # an exercise notebook's two pages (exercises/NAME.html as committed, NAME.source.html)
    exercise = os.path.basename(os.path.dirname(os.path.abspath(page_path))) == "exercises"
    # the course notebooks that mirror the lecture: all but 00, the tour (the floor's page is none)
    course = not exercise and os.path.exists(os.path.join(ROOT, "notebooks", os.path.splitext(name)[0] + ".ipynb"))
    mirrors = course and not name.startswith("00_")
    if exercise:
        want = "Correct" if name.endswith(".source.html") else "Not attempted"
        wrong = [v for v in found["verdicts"] if v != want]
        if not found["verdicts"] or wrong:
            problems.append(f"{len(found['verdicts'])} check outcomes drawn, {len(wrong)} of them not {want}: {wrong[:3]}")
        if found["progress"] != 1:
            problems.append(f"{found['progress']} progress tables with rows drawn, not 1")
        bad = [line for line in found["inputs"] if not line.startswith(("// lecture ", "// ours, "))]
        if bad:
            problems.append(f"{len(bad)} code cells open without their lecture reference, e.g. {bad[:1]}")
    if mirrors:
        bad = [line for line in found["inputs"] if not line.startswith(("// lecture ", "// ours, "))]
        if not found["inputs"] or bad:
            problems.append(f"{len(bad)} of {len(found['inputs'])} code cells open without their lecture reference, e.g. {bad[:1]}")
        if not any(h == "00_tour.html#Rust-for-Python-readers" for h in found["primer"]):
            problems.append(f"no link to the primer's page (00_tour.html#Rust-for-Python-readers): {found['primer']}")
    elif course and not found["primerHeading"]:
        problems.append("the primer's heading (id Rust-for-Python-readers) is missing")
    if found["classes"]:
        await page.locator(".zoo-class").first.screenshot(path=os.path.splitext(page_path)[0] + "-class.png")
    await page.screenshot(path=os.path.splitext(page_path)[0] + ".png")
    await page.close()
    return found["typeset"], found["italic"], diagrams, len(svgs), problems


async def main_async(pages):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium(), headless=True, args=FLAGS)
        failed = 0
        try:
            for path in pages:
                typeset, italic, diagrams, figures, problems = await check(browser, path)
                status = "FAIL" if problems else "ok  "
                failed += bool(problems)
                print(f"{status} {os.path.basename(path)}: {typeset} formulas typeset, {italic} one-letter variables checked, {figures} SVG images, {diagrams} of them diagrams"
                      + "".join(f"\n     {p}" for p in problems), flush=True)
        finally:
            await browser.close()
    return 1 if failed else 0


def main(pages):
    pages = pages or sorted(glob.glob(os.path.join(ROOT, "target", "notebooks", "*.html"))) + sorted(
        glob.glob(os.path.join(ROOT, "target", "notebooks", "exercises", "*.html")))
    if not pages:
        sys.exit("check_pages: no pages: run `make notebooks` first")
    return asyncio.run(main_async(pages))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
