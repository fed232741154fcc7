#!/usr/bin/env python3
"""Writes tools/evcxr/tests/own_training_loop.ipynb: a model of one's own, its data, an Adam and a
training loop of one's own, spread over a notebook's cells in every arrangement the code allows,
each arrangement with names of its own (`model_3`, `x_3`, ...), so that all of them run in one
kernel. Each arrangement's loop runs 30 steps, then its loop cell runs again (30 more steps).

The first arrangement is the whole code in one cell: the reference. The notebook's last cell
checks that every arrangement printed exactly the reference's losses, bit for bit, and panics
naming the first one that did not. Under the project's kernel (one shared copy of every
dependency) it passes; under evcxr as published (a copy of candle in every cell, so tensor ids
that collide across cells) arrangements fail or train differently: `check_kernel.py` runs it both
ways.

    python tools/evcxr/arrangements.py [--check]   (--check: fail if the committed notebook differs)
"""
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tests", "own_training_loop.ipynb")

SETUP = """// ours, not in the lecture: a model of one's own, and where each arrangement's losses go
#[derive(Clone, Debug, Walk)]
struct Mlp {
    hidden: Linear,
    out: Linear,
}
impl Mlp {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.out.forward(&self.hidden.forward(x)?.tanh()?)
    }
}
let mut runs: Vec<(String, Vec<f32>)> = Vec::new();"""

# The four parts, written for arrangement K. The data comes from a generator of its own and the
# model from manual_seed right before it, so that every order of the parts gives the same numbers.
PARTS = {
    "model": """manual_seed(7)?;
let model_K = Mlp { hidden: Linear::new(3, 8)?, out: Linear::new(8, 1)? };""",
    "data": """let x_K = Generator::new(1).randn((16, 3))?;
let y_K = x_K.sum_keepdim(1)?.tanh()?;""",
    "optimiser": """let mut adam_K = Adam::new(model_K.parameters(), 0.05)?;""",
    "loop": """let mut losses_K: Vec<f32> = Vec::new();
for _ in 0..30 {
    let loss = (model_K.forward(&x_K)? - &y_K)?.sqr()?.mean_all()?;
    let grads = loss.backward()?;
    adam_K.step(&grads)?;
    losses_K.push(loss.to_scalar::<f32>()?);
}
runs.push((String::from("K"), losses_K.clone()));
println!("arrangement K: {} runs, last loss {:?}", runs.iter().filter(|(k, _)| k == "K").count(), losses_K[29]);""",
}

CHECK = """// ours, not in the lecture: every arrangement, each loop run, against the one-cell reference
{
    let mut nth: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let reference: Vec<&Vec<f32>> = runs.iter().filter(|(k, _)| k == "0").map(|(_, l)| l).collect();
    assert_eq!(reference.len(), 2, "the reference ran its loop twice");
    for (k, losses) in &runs {
        let n = nth.entry(k.as_str()).or_insert(0);
        assert!(losses == reference[*n], "arrangement {k}, loop run {}: {:?} differs from the one-cell run's {:?}", *n + 1, losses, reference[*n]);
        *n += 1;
    }
    println!("{} loop runs of {} arrangements: every loss equal to the one-cell run's, bit for bit", runs.len(), nth.len());
};"""


def orders():
    """The orders of the parts the code allows: the optimiser after the model, the loop last."""
    for order in itertools.permutations(["model", "data", "optimiser"]):
        if order.index("model") < order.index("optimiser"):
            yield list(order) + ["loop"]


def arrangements():
    """Every order split into consecutive cells (the loop always in the last one), without
    repeats; the first is the whole code in one cell."""
    seen, out = set(), []
    for order in orders():
        for cuts in itertools.product([False, True], repeat=3):
            cells, current = [], [order[0]]
            for part, cut in zip(order[1:], cuts):
                if cut:
                    cells.append(current)
                    current = []
                current.append(part)
            cells.append(current)
            key = tuple(tuple(c) for c in cells)
            if len(cells) == 1:
                key = ("one cell",)
            if key not in seen:
                seen.add(key)
                out.append(cells)
    out.sort(key=lambda cells: (len(cells), [p for c in cells for p in c]))
    return out


def code(part, k):
    return PARTS[part].replace("_K", f"_{k}").replace('"K"', f'"{k}"').replace("arrangement K", f"arrangement {k}")


def cell(source, cell_id):
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [], "source": source}


def notebook():
    cells = [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source":
         "# A training loop of one's own, across cells\n\nWritten by `tools/evcxr/arrangements.py`: "
         "the same model, data, optimiser and loop spread over cells in every arrangement, each "
         "loop cell run twice; the last cell checks every loss against the one-cell run."},
        cell(":dep attention_zoo = { path = \"../../..\", package = \"attention-zoo\" }\nuse attention_zoo::prelude::*;", "dep"),
        cell(SETUP, "setup"),
    ]
    for k, parts in enumerate(arrangements()):
        for i, group in enumerate(parts):
            body = "\n".join(code(p, k) for p in group)
            header = f"// ours, not in the lecture: arrangement {k}, cell {i + 1} of {len(parts)}: {', '.join(group)}"
            cells.append(cell(header + "\n" + body, f"a{k}-{i}"))
        cells.append(cell(f"// ours, not in the lecture: arrangement {k}, its loop cell again\n" + code("loop", k), f"a{k}-again"))
        # evcxr keeps every variable and stores and loads each one in every later cell: done with.
        cells.append(cell(f"// ours, not in the lecture: arrangement {k} is done\n" + f"drop((model_{k}, x_{k}, y_{k}, adam_{k}, losses_{k}));", f"a{k}-done"))
    cells.append(cell(CHECK, "check"))
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Rust (attention-zoo)", "language": "rust", "name": "rust"},
                                         "language_info": {"name": "Rust", "file_extension": ".rs", "mimetype": "text/rust"}},
            "nbformat": 4, "nbformat_minor": 5}


def main(argv):
    text = json.dumps(notebook(), indent=1, ensure_ascii=False) + "\n"
    if "--check" in argv:
        if open(OUT, encoding="utf-8").read() != text:
            sys.exit(f"{OUT} is not what tools/evcxr/arrangements.py writes: run it")
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {OUT}: {len(arrangements())} arrangements")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
