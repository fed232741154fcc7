"""Opens each executed notebook page (target/notebooks/*.html) in headless Chromium, offline, and
checks what a reader sees: every formula typeset by the local MathJax (no `$$` left as raw text,
no MathJax error) and every architecture diagram drawn. Writes a screenshot of each page's top
beside it (NAME.png). `make pages-check` runs it after `make notebooks`.

    python3 tools/check_pages.py [PAGE.html...]
"""
import base64
import glob
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--virtual-time-budget=15000",
]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("check_pages: no Chromium found (Debian: apt-get install chromium)")


def visible_text(dom):
    dom = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", dom, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


def check(browser, page, profile):
    url = "file://" + os.path.abspath(page)
    dom = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    problems = []
    typeset = len(re.findall(r'class="MathJax(_Display)?"', dom))
    text = visible_text(dom)
    raw = [m.group(0)[:60] for m in re.finditer(r"\$\$[^$]+\$\$", text)]
    if raw:
        problems.append(f"{len(raw)} formulas left as raw text, e.g. {raw[0]!r}")
    if "Math Processing Error" in dom:
        problems.append("MathJax reported a processing error")
    # nbconvert embeds SVG outputs as base64 images: decode them to find the diagrams
    svgs = [base64.b64decode(m).decode("utf-8", "replace") for m in re.findall(r'data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)', dom)]
    diagrams = sum('<marker id="arrowhead-' in svg for svg in svgs)
    asked = len(re.findall(r"draw\(Architecture", re.sub(r"<[^>]+>", "", dom)))
    if diagrams < asked:
        problems.append(f"{asked} cells draw an architecture but {diagrams} diagrams are on the page")
    subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", "--window-size=1100,1400",
                    f"--screenshot={os.path.splitext(page)[0]}.png", url], capture_output=True, timeout=120)
    return typeset, diagrams, len(svgs), problems


def main(pages):
    pages = pages or sorted(glob.glob(os.path.join(ROOT, "target", "notebooks", "*.html")))
    if not pages:
        sys.exit("check_pages: no pages: run `make notebooks` first")
    browser = chromium()
    failed = 0
    with tempfile.TemporaryDirectory() as profile:
        for page in pages:
            typeset, diagrams, figures, problems = check(browser, page, profile)
            status = "FAIL" if problems else "ok  "
            failed += bool(problems)
            print(f"{status} {os.path.basename(page)}: {typeset} formulas typeset, {figures} SVG images, {diagrams} of them diagrams" + "".join(f"\n     {p}" for p in problems))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
