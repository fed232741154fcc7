"""The crate's excerpts file (src/notebook/code/excerpts.txt, written by
`ZOO_BLESS=1 cargo test --test zoo class_excerpts`): the items the notebooks show, as the crate's
files have them. Read by the notebook runner and by the course builder (tools/course/)."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXCERPTS = os.path.join(ROOT, "src", "notebook", "code", "excerpts.txt")


def solution_texts():
    """excerpts.txt's solution records: (file, item) -> the item's text, as the crate shows it."""
    data = open(EXCERPTS, encoding="utf-8").read()
    out = {}
    for record in data.split("\n#### ")[1:]:
        head, _, text = record.partition("\n")
        if head.startswith("Practice "):
            path, _, pick = head[len("Practice "):].partition(" ")
            out[(path, pick)] = text[:-1] if text.endswith("\n") else text
    return out
