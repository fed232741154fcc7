# attention-zoo: everything a run needs is installed by these targets: Jupyter in the repo's .venv/,
# evcxr_jupyter and the kernels' build folders once per user under $(ZOO_CACHE).
#   make notebooks   install what is missing, then execute every notebook under the real kernel
#                    (a notebook unchanged since its last good run, with the crate and the kernel
#                    set-up unchanged too, is skipped unless FORCE=1); NB="a.ipynb ..." runs your
#                    own notebooks instead, from any folder; every number a course notebook's prose
#                    quotes must be printed by one of its cells in that run or be written in its code
#                    (tools/check_prose.py); each exercise notebook runs twice: the students' version
#                    (notebooks/exercises/), every check saying Not attempted, and its source
#                    (notebooks/exercises-source/: the crate's solutions, each check cell graded as
#                    nbgrader grades it), every check cell giving its points, Correct
#   make exercises   notebooks/exercises/ written from notebooks/exercises-source/ by nbgrader's
#                    generate_assignment, after the crate's solutions are put into the source
#                    (tools/course/exercises.py); run it after editing a source or a solution
#   make test        lint (fmt, clippy, doc), cargo test (code cells of every notebook included),
#                    `make js-test`, then `make notebooks`, then `make own-notebook-check` (notebooks
#                    of your own, from a folder outside the clone, through `make notebooks NB=...`),
#                    then `make kernel-check`
#   make kernel-check what the kernel's patches to evcxr promise (tools/evcxr/check_kernel.py): a
#                    training loop of one's own across cells in every arrangement, a logger and
#                    candle's tensor ids across cells (each also with the dependencies linked into
#                    every cell, as evcxr as published does, where they must fail), StepByStep
#                    across cells both ways, plain nbconvert stopping at a failing `?` cell, panics
#                    at the cell's line, derives typed, the kernel without a proc-macro server,
#                    the shell socket answering while peers come and go by the thousand
#   make js-test     the explorer's script (src/notebook/explorer/js/): every file parses alone
#                    (node --check), and node's unit tests of its pure parts (installs nodejs if missing)
#   make lint        cargo fmt --check, clippy with warnings as errors, cargo doc without warnings
#   make pages-check open the executed pages (target/notebooks/*.html) in headless Chromium, offline:
#                    every formula typeset by the local MathJax in its STIX web fonts, every diagram
#                    drawn, no request outside the pages' folder (installs Debian's chromium and
#                    Playwright if missing; run after `make notebooks`); then every attention
#                    explorer on the pages and a synthetic 6-layer, 8-head one clicked through
#                    (tools/check_explorer.py: layer switch, hover, readout against the data; the
#                    neuron view, SVG and PNG export, keyboard, light and dark themes); then a page
#                    of real models' explorers (examples/explorer_neurons.rs: the lecture's additive
#                    and general scores, a Transformer, the recurrent translators) whose neuron views
#                    must show their tensors' values to 3 decimals; then --self-test-broken (the same
#                    checks must fail on copies whose script lacks a function)
#   make lab         JupyterLab on 127.0.0.1 with the same kernel, on lab/ (your copies of the course
#                    notebooks, ignored by git; notebooks/ is never written); DIR=path serves a folder
#                    of your own instead; each folder with a running notebook keeps a warm spare
#                    kernel for the next restart or new notebook there (tools/evcxr/spare.py,
#                    about 1.1 GB; ZOO_SPARE_KERNEL=0 turns it off)
#   make lab-check   the student's path through the real Lab (installs Chromium and Playwright):
#                    30 kernel restarts the way JupyterLab restarts them, each with a cell queued at
#                    once, the Lab in headless Chromium (run, Kernel > Restart, save), a second
#                    notebook's start with a lecture class cell (show_class) rendered in colour beside
#                    its diagram and an attention explorer whose script runs, one exercise (01.q3) run
#                    as committed, with a wrong answer and with the solution (Not attempted, Incorrect,
#                    Correct, screenshotted), the explorer cell again in JupyterLab Dark (switched
#                    through the Settings menu, then back), git status and the Lab's settings unchanged;
#                    a kernel's first answer may take 15 minutes on a cold first start, later ones
#                    max(60 s, 4x the fastest start measured), each start's time printed.
#                    SHORT=1: what CI runs (3 to 4 min on 2 cores): the nudge probe, 5 restarts,
#                    one Kernel > Restart, the class, explorer and dark-theme steps, and 01.q3 as
#                    committed and solved (no failed start-up, wrong answer or hint)
#   make browser-checks  CI's checks in Chromium after `make test`: installs Chromium and Playwright,
#                    then `make pages-check` and `make lab-check SHORT=1` (both run, each timed;
#                    fails if either fails)
#   make grade COURSE=DIR ASSIGNMENT=NAME [STUDENT=GLOB]
#                    a class's submissions (DIR/submitted/*/NAME) autograded by nbgrader 0.9.6, each
#                    kernel in a sandbox (tools/course/sandbox.py: bubblewrap, namespaces, cgroups;
#                    refuses without them unless ZOO_GRADE_UNPROTECTED=1), then grades.csv and the
#                    feedback pages
#   make grade-check a synthetic class graded that way, end to end: exercise notebook 01 as an
#                    assignment (tools/course/), its students' version checked against notebooks/exercises/,
#                    honest submissions and hostile ones (test cells tampered with, checks shadowed,
#                    output silenced, writes and reads outside, processes and memory without end,
#                    sockets, the kernel killed), every score checked in the
#                    gradebook and grades.csv, the course folder's hashes compared; then part of the
#                    class again by two graders at once sharing a PostgreSQL gradebook (about 8 min)
#   make fixtures    regenerate tests/fixtures/*.json from PyTorch and NumPy (installs them)
#   make bench       our trainings against PyTorch's: the lecture's on one thread each, the four translators on two with GFLOP/s, then their greedy and beam-4 decoding
#                    against an FMA probe's peak; then `make seeds`
#   make bench-scale notebook 04's Transformer grown to the paper's base model (and a case of 128-256-token
#                    sentences), trained by us and by PyTorch on the same batches from the same weights,
#                    3 runs a side alternating: tokens/s, GFLOP/s against the FMA peak, the wide
#                    layers' products alone (their rate and share of our time, padded and not), the
#                    ceiling they set with the passes over the parameters at memory speed and the
#                    attentions at the peak, peak RSS, a perf profile per size, the base model's
#                    greedy decoding; writes
#                    target/bench-scale/
#                    (scale.json, scale.svg: tokens/s against parameters, log axes) (about 15 minutes)
#   make seeds       the lecture's four trainings over many model seeds (24 for the recurrent ones, 128 for
#                    self-attention; about 6 minutes): our final losses against PyTorch's
#                    (tests/fixtures/seed_spread.json), two-sample KS at 5% and medians within 25%
#   make fuzz        the property tests with fresh random seeds, round after round, for FUZZ_SECONDS
#   make clean-tools remove what the targets installed (evcxr_jupyter, build caches, .venv, kernel)

SHELL := /bin/bash
ROOT := $(CURDIR)
PYTHON ?= python3
VENV := $(ROOT)/.venv
REF_VENV := $(ROOT)/.venv-ref
GRADE_VENV := $(ROOT)/.venv-grade
EVCXR_VERSION := 0.22.0
# crates.io's checksum of evcxr_jupyter-0.22.0.crate, and our patches to it and to the evcxr crate
# it builds on, applied in order (tools/evcxr/README.md).
EVCXR_SHA256 := 3ce0d7b3058f68a9673df4f1266b641942fea0ec131881d095306e509a382764
EVCXR_PATCHES := $(sort $(wildcard tools/evcxr/patches/*.patch))
# The user's cache directory: evcxr_jupyter (pinned, built once), evcxr's compile cache and the
# kernels' kept build folders, shared by every clone of this user (CI's fresh clones included).
ZOO_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/attention-zoo
EVCXR_ROOT := $(ZOO_CACHE)/evcxr-$(EVCXR_VERSION)-patch-$(shell cat $(EVCXR_PATCHES) | sha1sum | cut -c1-8)
EVCXR := $(EVCXR_ROOT)/bin/evcxr_jupyter
# One set of kernel build slots per clone: its crate path is part of what cargo tracks.
SLOTS := $(ZOO_CACHE)/build/$(shell printf '%s' '$(ROOT)' | sha1sum | cut -c1-12)
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
# A training loop of one's own across cells, in every arrangement (tools/evcxr/arrangements.py):
# under the kernel it must give the one-cell run's losses, bit for bit.
KERNEL_NOTEBOOKS := tools/evcxr/tests/own_training_loop.ipynb
# The exercise notebooks: each run twice, as the students get it (every check Not attempted) and
# its source (every check cell graded Correct); see tools/run_notebooks.py.
EXERCISES := $(sort $(wildcard notebooks/exercises/*.ipynb))
NOTEBOOK_OUT := $(ROOT)/target/notebooks

export JUPYTER_DATA_DIR := $(ROOT)/.jupyter/data
export JUPYTER_PATH := $(ROOT)/.jupyter/data
export JUPYTER_CONFIG_DIR := $(ROOT)/.jupyter/config
export JUPYTER_RUNTIME_DIR := $(ROOT)/.jupyter/runtime
export EVCXR_CONFIG_DIR := $(ROOT)/.jupyter/evcxr
export RAYON_NUM_THREADS := 1
KERNEL_JSON := $(JUPYTER_DATA_DIR)/kernels/rust/kernel.json

.PHONY: exercises grade grade-check notebooks test lint lab lab-check kernel-check own-notebook-check fixtures bench bench-scale seeds fuzz setup cargo-test clean-tools pages-check browser-checks js-test

# With NB, the student's own notebooks: always run, no floor, and a value shown as plain text is fine.
notebooks: setup
ifeq ($(NB),)
	$(VENV)/bin/python tools/check_prose.py --self-test
	$(VENV)/bin/python tools/run_notebooks.py $(if $(filter 1,$(FORCE)),,--skip-unchanged) --floor tools/evcxr/floor.ipynb $(NOTEBOOK_OUT) $(NOTEBOOKS) $(EXERCISES) $(KERNEL_NOTEBOOKS)
else
	$(VENV)/bin/python tools/run_notebooks.py --own $(NOTEBOOK_OUT)/yours $(NB)
endif

# CI always runs every notebook, then a notebook of a student's own from outside the clone, then
# what the kernel's patches promise (tools/evcxr/check_kernel.py).
test: lint cargo-test js-test
	$(MAKE) notebooks FORCE=1
	$(MAKE) own-notebook-check
	$(MAKE) kernel-check

# The students' exercise notebooks from their source (tools/course/exercises.py).
exercises: $(GRADE_VENV)/.installed
	$(GRADE_VENV)/bin/python tools/course/exercises.py

# A class's submissions graded in the sandbox: make grade COURSE=path/to/course ASSIGNMENT=name [STUDENT=glob]
grade: setup $(GRADE_VENV)/.installed
	@test -n "$(COURSE)" -a -n "$(ASSIGNMENT)" || (echo "usage: make grade COURSE=path/to/course ASSIGNMENT=name [STUDENT=glob]"; exit 2)
	command -v bwrap >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap)
	$(GRADE_VENV)/bin/python tools/course/grade.py $(COURSE) $(ASSIGNMENT) $(STUDENT)

grade-check: setup $(GRADE_VENV)/.installed
	command -v bwrap >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap)
	command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql)
	$(GRADE_VENV)/bin/python tools/course/grade_check.py $(ROOT)/target/course-check

$(GRADE_VENV)/.installed: tools/course/requirements.txt
	test -x $(GRADE_VENV)/bin/python || $(PYTHON) -m venv $(GRADE_VENV)
	$(GRADE_VENV)/bin/python -m pip install -q --disable-pip-version-check -r $<
	touch $@

kernel-check: setup
	$(VENV)/bin/python tools/evcxr/check_kernel.py

own-notebook-check: setup
	$(VENV)/bin/python tools/check_own_notebook.py

lint:
	cargo fmt --check
	cargo clippy --all-targets --color never -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --color never

cargo-test:
	cargo test --color never

setup: $(VENV)/.installed $(EVCXR) $(KERNEL_JSON)

$(VENV)/.installed: tools/requirements-notebooks.txt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r $<
	touch $@

$(EVCXR):
	$(PYTHON) tools/evcxr/install_evcxr.py $(EVCXR_VERSION) $(EVCXR_SHA256) $(EVCXR_ROOT) $(EVCXR_PATCHES)

$(KERNEL_JSON): $(EVCXR) tools/install_kernel.py tools/evcxr/launch.py tools/evcxr/init.evcxr tools/evcxr/prelude.rs tools/evcxr/warm_up.rs $(VENV)/.installed
	$(VENV)/bin/python tools/install_kernel.py $(dir $@) $(EVCXR) $(EVCXR_CONFIG_DIR) $(ZOO_CACHE) $(ZOO_CACHE)/lld $(SLOTS)

# Chromium from Debian's packages and Playwright (its Python driver, no browser download) for the checks.
CHECKS := $(VENV)/.checks-installed
$(CHECKS): tools/requirements-checks.txt $(VENV)/.installed
	command -v chromium >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r $<
	touch $@

pages-check: $(CHECKS)
	$(VENV)/bin/python tools/check_pages.py
	$(VENV)/bin/python tools/check_explorer.py
	cargo run --quiet --color never --example explorer_neurons -- $(ROOT)/target/explorer-neurons
	$(VENV)/bin/python tools/check_explorer.py $(ROOT)/target/explorer-neurons/page.html --expect $(ROOT)/target/explorer-neurons/expected.json
	$(VENV)/bin/python tools/check_explorer.py --self-test-broken

# The explorer's script (src/notebook/explorer/js/): every file parses alone as a classic script, and the
# unit tests of its pure parts (decoding, formatting, layouts) pass; node from Debian's packages.
js-test:
	command -v node >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs)
	for f in src/notebook/explorer/js/*.js; do node --check "$$f" || exit 1; done
	node --test src/notebook/explorer/js/tests/

lab-check: setup $(CHECKS)
	ZOO_SLOTS=$(SLOTS) $(VENV)/bin/python tools/check_lab.py $(if $(filter 1,$(SHORT)),--short)

# What CI (.ci/run) runs after `make test`, which executes the pages pages-check opens. Each part is
# timed; both checks run even when the first fails, and the target fails if either did.
TIMED = start=$$(date +%s); $(2); rc=$$?; took=$$(( $$(date +%s) - start )); \
	echo "$(1): $$((took / 60)) min $$((took % 60)) s$$([ $$rc = 0 ] || echo ", FAILED (exit $$rc)")"
browser-checks:
	@$(call TIMED,Chromium and Playwright,$(MAKE) --no-print-directory $(CHECKS)); [ $$rc = 0 ] || exit $$rc; \
	$(call TIMED,make pages-check,$(MAKE) --no-print-directory pages-check); pages=$$rc; \
	$(call TIMED,make lab-check SHORT=1,$(MAKE) --no-print-directory lab-check SHORT=1); lab=$$rc; \
	[ $$pages = 0 ] && [ $$lab = 0 ]

clean-tools:
	rm -rf $(ZOO_CACHE) $(VENV) $(ROOT)/.jupyter $(ROOT)/.tools $(ROOT)/.cache

lab: setup
	$(VENV)/bin/python tools/lab.py $(if $(DIR),--dir $(DIR),--course notebooks --dir $(ROOT)/lab) -- $(LAB_ARGS)

$(REF_VENV)/.installed: tools/requirements-reference.txt
	test -x $(REF_VENV)/bin/python || $(PYTHON) -m venv $(REF_VENV)
	$(REF_VENV)/bin/python -m pip install -q --disable-pip-version-check -r $<
	touch $@

fixtures: $(REF_VENV)/.installed
	$(REF_VENV)/bin/python tools/fixtures

bench: $(REF_VENV)/.installed
	cargo build --release --example bench
	$(REF_VENV)/bin/python tools/bench.py $(ROOT)/target/release/examples/bench
	$(MAKE) seeds

bench-scale: $(REF_VENV)/.installed
	cargo build --release --example bench
	$(REF_VENV)/bin/python tools/bench_scale.py $(ROOT)/target/release/examples/bench $(ROOT)/target/bench-scale
	$(ROOT)/target/release/examples/bench scale-plot=$(ROOT)/target/bench-scale/scale.json:$(ROOT)/target/bench-scale/scale.svg

seeds:
	cargo build --release --example bench
	$(ROOT)/target/release/examples/bench seeds=$(ROOT)/tests/fixtures/seed_spread.json

FUZZ_SECONDS ?= 600
FUZZ_CASES ?= 2000

fuzz:
	cargo test --color never --no-run --test zoo
	end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); round=0; \
	while [ $$(date +%s) -lt $$end ]; do \
	  round=$$((round + 1)); echo "fuzz round $$round ($(FUZZ_CASES) cases a property)"; \
	  PROPTEST_CASES=$(FUZZ_CASES) cargo test --color never -q --test zoo properties:: || exit 1; \
	  PROPTEST_CASES=$(FUZZ_CASES) cargo test --color never -q --test zoo notebooks::corruption || exit 1; \
	done; echo "fuzz: $$round rounds, no panic"
