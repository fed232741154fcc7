#!/usr/bin/env python3
"""A student's own notebooks, from a folder outside the clone, through the README's documented
path (`make notebooks NB=...`, the kernel `rust`). `make test` runs it.

1. A notebook of the README's lines without a `:dep` (the kernel has the crate): the encoder of
   the lecture's first example must print the lecture's hidden states, as PyTorch prints them.
2. The same with the README's two lines for any evcxr kernel (`:dep` by the clone's path, `use`).
3. A model of the student's own with `#[derive(Walk)]`, trained by `StepByStep`, its losses plotted
   into a variable (`let fig = sbs.plot_losses()?;`, whose type the kernel infers): the parameters
   must carry the fields' names, the renamed one under its new name.
4. A notebook whose second cell's `?` returns an error: the run must fail and name that cell
   (under the project's kernel that error is a Jupyter error, which plain `jupyter nbconvert
   --execute` stops at too: tools/evcxr/check_kernel.py checks it).

    python tools/check_own_notebook.py   (with the environment `make` sets)
"""
import os
import shutil
import subprocess
import sys
import tempfile

import nbformat

from check_lab import notebook

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The lecture's first example (000: torch.manual_seed(21), Encoder(n_features=2, hidden_dim=2) over
# the first two corners), as PyTorch prints it; the PDF lost the first sign (../shared/seeds/README).
EXPECTED = "tensor([[[ 0.0832, -0.0356],\n         [ 0.3105, -0.5263]]])"
ENCODER = """manual_seed(21)?;
let mut encoder = Encoder::new(2, 2)?;
let x = Tensor::new(&[[[-1f32, -1.], [-1., 1.]]], &Device::Cpu)?;
show(&encoder.forward(&x)?)"""
OWN_MODEL = [
    """#[derive(Clone, Debug, Walk)]
struct Mlp {
    hidden: Linear,
    #[walk(rename = "output")]
    out: Linear,
}
impl Model for Mlp {
    fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        self.out.forward(&self.hidden.forward(x)?.tanh()?)
    }
}""",
    """manual_seed(0)?;
let x = attention_zoo::repro::rand((8, 2))?;
let y = x.sum_keepdim(1)?;
let mlp = Mlp { hidden: Linear::new(2, 4)?, out: Linear::new(4, 1)? };
let adam = Adam::new(mlp.parameters(), 0.01)?;
let mut sbs = StepByStep::new(mlp, MSELoss::new(), adam);
sbs.set_loaders(DataLoader::new(&TensorDataset::new(&x, &y)?, 4)?, None);
sbs.train(3)?;
let fig = sbs.plot_losses()?;""",
    """let names: Vec<String> = sbs.model.named_parameters().into_iter().map(|(n, _)| n).collect();
names.join(" ")""",
]
OWN_NAMES = "hidden.weight hidden.bias output.weight output.bias"
DEP = ':dep attention_zoo = { path = "%s", package = "attention-zoo" }\nuse attention_zoo::prelude::*;' % ROOT


def run(paths):
    return subprocess.run(["make", "--no-print-directory", "notebooks", "NB=" + " ".join(paths)], cwd=ROOT,
                          capture_output=True, text=True)


def printed(executed, cell):
    outputs = [c for c in nbformat.read(executed, as_version=4).cells if c.cell_type == "code"][cell].outputs
    return ["".join(o["data"]["text/plain"]) for o in outputs if "data" in o and "text/plain" in o["data"]]


def main():
    folder = tempfile.mkdtemp(prefix="my-notes-")
    failures = []
    try:
        if os.path.commonpath([folder, ROOT]) == ROOT:
            sys.exit("check_own_notebook: the temporary folder is inside the clone")
        plain, with_dep, own, broken = (os.path.join(folder, n) for n in ("mine.ipynb", "mine_with_dep.ipynb", "my_model.ipynb", "broken.ipynb"))
        for path, cells in ((plain, [ENCODER]), (own, OWN_MODEL), (with_dep, [DEP, ENCODER]),
                            (broken, ["let n = 3;\nn", "Encoder::new(2, 2)?.forward(&Tensor::zeros((1, 2, 3), DType::F32, &Device::Cpu)?)?;"])):
            nbformat.write(nbformat.from_dict(notebook(cells)), path)
        done = run([plain, with_dep, own])
        if done.returncode != 0:
            failures.append(f"`make notebooks NB=...` failed on the three good notebooks:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        else:
            out = os.path.join(ROOT, "target", "notebooks", "yours")
            for name, cell in (("mine", 0), ("mine_with_dep", 1)):
                got = printed(os.path.join(out, name + ".ipynb"), cell)
                if got != [EXPECTED]:
                    failures.append(f"{name}: printed {got}, not the lecture's {EXPECTED!r}")
                else:
                    print(f"ok   {name}.ipynb from {folder}: {EXPECTED.splitlines()[0]} ...")
            got = printed(os.path.join(out, "my_model.ipynb"), 2)
            if [g.strip('"') for g in got] != [OWN_NAMES]:
                failures.append(f"my_model: the derived walk named {got}, not {OWN_NAMES!r}")
            else:
                print(f"ok   my_model.ipynb: a derived model trained and plotted, parameters {OWN_NAMES}")
        failed = run([broken])
        said = failed.stdout + failed.stderr
        if failed.returncode == 0 or "code cell 2" not in said or "Encoder" not in said:
            failures.append(f"a `?` error in cell 2 did not stop the run with that cell named:\n{said[-2000:]}")
        else:
            print("ok   broken.ipynb: the `?` error of cell 2 stopped the run and was named")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
