# The virtual environment lives in .venv; every target creates it when missing.
PYTHON ?= python3
comma := ,
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The demo needs rankproof and its four dependencies only (no test or benchmark extras).
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: install ext test test-fast parity demo report-demo bench bench-quick bytecode wheel clean docs

install: $(STAMP)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench,docs]'
	$(MAKE) -s bytecode
	touch $(STAMP) $(DEMO_STAMP) $(DOCS_STAMP)

# Fast path for a first number: a venv created without ensurepip (which byte-compiles
# pip itself: ~15-35 s on the 2-core VM) and filled by the system's pip (--python,
# pip >= 22.3), pip included, in one resolve: the venv has its own pip afterwards
# (`.venv/bin/pip install pandas` lands in it). No byte-compiling of numpy/scipy/pyarrow
# at install (~half of pip's time): Python compiles the few modules the demo imports
# when it first imports them. Where the rest goes (2 cores, warm pip cache): ~6 s for
# the four wheels, ~3 s for the build's own environment (setuptools, Cython), and the
# compiled modules (cythonize ~8 s, gcc ~30 s of CPU), one job per core (setup.py).
# `make install` later fills the same venv with every extra.

$(DEMO_STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	if $(PYTHON) -m pip --python $(BIN)/python --version >/dev/null 2>&1; then \
		$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile pip -e .; \
	else \
		$(BIN)/python -m ensurepip --default-pip >/dev/null && \
		$(BIN)/python -m pip install --quiet --no-compile -e .; \
	fi
	touch $(DEMO_STAMP)

# The compiled modules, rebuilt in place when a .pyx changed since the install
# (cythonize and build_ext skip what is up to date).
ext: $(STAMP)
	$(BIN)/python setup.py -q build_ext --inplace >/dev/null

# An editable install leaves rankproof's own modules uncompiled, and with
# PYTHONDONTWRITEBYTECODE set (as on these machines) every process would
# compile them again (~50 ms). pip compiles an installed wheel, and the peers
# in the benchmarks were installed so: compile ours too, before timing.
bytecode:
	$(BIN)/python -m compileall -q src benchmarks >/dev/null

# A missing test oracle (../shared, a trec_eval binary, java for Spark) skips its tests on a
# contributor's machine; with RANKPROOF_REQUIRE_ORACLES=1 (.ci/run sets it) it fails them, and
# make stops here with one line naming it. tests/support/oracles.py does the same inside pytest.
REQUIRE_ORACLES = $(filter-out 0,$(RANKPROOF_REQUIRE_ORACLES))
# $(call no-oracle,what is missing,what happens without it)
no-oracle = $(if $(REQUIRE_ORACLES),echo "missing oracle: $(1) (RANKPROOF_REQUIRE_ORACLES is set)" >&2; exit 1,echo "no $(1): $(2)")

# trec_eval 10, built from the read-only reference source into build/ (a test oracle and a peer).
TREC_EVAL_SRC := ../shared/reference/trec_eval-10
TREC_EVAL := build/trec_eval/trec_eval

$(TREC_EVAL):
	@if [ -d $(TREC_EVAL_SRC) ]; then \
		mkdir -p build/trec_eval && cp -r $(TREC_EVAL_SRC)/. build/trec_eval/ && \
		$(MAKE) -s -C build/trec_eval >/dev/null 2>&1; \
	else $(call no-oracle,$(TREC_EVAL_SRC),tests against trec_eval will be skipped); fi

# trec_eval 9.0.8 (inside pytrec_eval), built the same way: the oracle of `rankproof trec-eval --v9`.
TREC_EVAL9_SRC := ../shared/reference/trec_eval-9.0.8
TREC_EVAL9 := build/trec_eval9/trec_eval

$(TREC_EVAL9):
	@if [ -d $(TREC_EVAL9_SRC) ]; then \
		mkdir -p build/trec_eval9 && cp -r $(TREC_EVAL9_SRC)/. build/trec_eval9/ && \
		$(MAKE) -s -C build/trec_eval9 >/dev/null 2>&1; \
	else $(call no-oracle,$(TREC_EVAL9_SRC),tests against trec_eval 9 will be skipped); fi

# Every test (what CI runs): parity with the peers, the trec_eval oracles, Spark, and the
# documentation site (tests/docs builds it strict, checks its links and opens it in Chromium).
# The benchmarks are not tests: `make bench-quick` and `make bench` run them.
# The tests run on TEST_WORKERS processes (pytest-xdist); every test writes only inside its own
# temporary folder, and Spark's sessions and the cluster test take free ports, so they can.
TEST_WORKERS ?= 2
# `make demo` from a fresh copy of the repository, timed (under 60 s or the run fails), runs first and
# alone: beside the suite's workers its compile would share the two cores (60 s and over, against ~44 s
# alone). Then mypy (one core, ~27 s of CPU) runs beside the suite instead of before it, and the
# workers steal each other's queued tests, so that a long test at the end leaves no core idle.
# The differential parity suite (tests/parity) is `make parity`'s, which CI runs next: not twice.
test: $(STAMP) ext $(TREC_EVAL) $(TREC_EVAL9)
	$(BIN)/ruff check src
	RANKPROOF_TIME_DEMO=1 $(BIN)/python -m pytest -n 0 tests/cli/test_demo_fresh.py
	@mkdir -p build; $(BIN)/mypy > build/mypy.out 2>&1 & mypy=$$!; \
	status=0; $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --ignore=tests/parity || status=$$?; \
	wait $$mypy || status=$$((status ? status : 1)); cat build/mypy.out; exit $$status

# The tier for every edit: ruff and the tests that need no peer library, oracle, Spark
# or long run (the markers in pyproject.toml; tests/conftest.py sets parity and oracle).
test-fast: $(STAMP) ext
	$(BIN)/ruff check src
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not parity and not oracle and not spark and not slow"

# The RAG frameworks' own metric code against their presets (.ci/run runs it after `make test`):
# the parity extra's packages installed on top of the test extra (rankproof itself is not
# reinstalled, so nothing is recompiled): about a minute of installs when torch is there already.
# Then the differential suite (tests/parity): 10,000 random cases per framework, each framework's
# code and the preset on all of them in one call, the case counts printed at the end.
parity: $(STAMP) ext
	$(BIN)/python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['parity']))" \
		| xargs $(BIN)/python -m pip install --quiet
	$(BIN)/python -m pytest -n $(TEST_WORKERS) tests/protocol/test_rag_parity.py tests/parity

# Workload B once per tool: checks that the harness runs and that every
# peer's values agree with rankproof's; no time is asserted.
bench-quick: $(STAMP) ext $(TREC_EVAL) bytecode
	$(BIN)/python benchmarks/run.py --quick
	$(BIN)/python benchmarks/dense_bench.py --rows 20000 --sklearn-rows 2000 --repeat 1

# Every speed target (issues 12 and 24), peers in the same run, medians of 3 or more; each script
# also writes its figures into benchmarks/results/NAME.json (committed: the docs site's benchmark
# page is generated from them; schema in benchmarks/results.py). Workloads are written into
# benchmarks/data/ once. TREC files as whole processes: D (2M lines), A (10M), C (10M), B (1k x 100);
# in memory against ranx; reading A.run against pyarrow; score matrices against scikit-learn at 100k
# and 1M rows; the long log (1M users x 20); the 100M-row out-of-core run; Spark local[2] against
# RankingEvaluator at 25M rows; a million users end to end (million.py: evaluate with and without the
# side measures, compare, systems, segments, monitor, balance, report, each a whole process, against
# issue 35's targets). About 2 hours on the 2-core VM (trec_eval on C alone ~3-10 min).
RESULTS := benchmarks/results

bench: $(STAMP) ext $(TREC_EVAL) bytecode
	$(BIN)/python benchmarks/run.py --workloads D A C B --repeat 3 --json $(RESULTS)/run.json
	$(BIN)/python benchmarks/engine_bench.py --repeat 3 --json $(RESULTS)/engine_bench.json
	$(BIN)/python benchmarks/read_bench.py --workload A --repeat 5 --json $(RESULTS)/read_bench.json
	rm -f $(RESULTS)/dense_bench.json
	$(BIN)/python benchmarks/dense_bench.py --rows 100000 --repeat 5 --json $(RESULTS)/dense_bench.json
	$(BIN)/python benchmarks/dense_bench.py --repeat 3 --json $(RESULTS)/dense_bench.json
	$(BIN)/python benchmarks/frame_bench.py --no-apply --repeat 3 --json $(RESULTS)/frame_bench.json
	$(BIN)/python benchmarks/outofcore_bench.py --repeat 3 --json $(RESULTS)/outofcore_bench.json
	$(BIN)/python benchmarks/spark_bench.py --tools local,spark2,evaluator --repeat 3 --json $(RESULTS)/spark_bench.json
	$(BIN)/python benchmarks/million.py --users 1000000 --repeat 3 --json $(RESULTS)/million.json

# A release wheel of this platform and Python, with the compiled modules, in dist/
# (python -m build: an isolated environment with the build-system requirements;
# Cython is needed only there). Wheels for every platform: cibuildwheel, see README.
# The release extra (build, cibuildwheel) is installed here, not by `make install`,
# so that CI's fresh venv does not fetch what no test uses.
wheel: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[release]'
	$(BIN)/python -m build --wheel --outdir dist/ .

# The documentation site, strict (a warning fails the build), into build/site (see mkdocs.yml).
# NO_MKDOCS_2_WARNING: mkdocs-material prints a notice about its end of life and MkDocs 2
# on every build; it is not a build warning, and the docs extra pins mkdocs < 2 and
# mkdocs-material < 10, so it is silenced here (and in tests/docs, which build the site too).
# The site needs the docs extra only (no torch, Spark or LightGBM: `make install` took ~12 min
# for them), installed as the demo's venv is (with its own pip; after `make install` it is there
# already). Its atlas page runs the peers that are installed, the trec_eval binaries among them
# (scripts/docs/atlas.py), and names, one line per missing peer, the command that adds it.
DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	if $(PYTHON) -m pip --python $(BIN)/python --version >/dev/null 2>&1; then \
		$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile pip -e '.[docs]'; \
	else \
		$(BIN)/python -m ensurepip --default-pip >/dev/null && \
		$(BIN)/python -m pip install --quiet --no-compile -e '.[docs]'; \
	fi
	touch $(DOCS_STAMP) $(DEMO_STAMP)

docs: $(DOCS_STAMP) $(TREC_EVAL) $(TREC_EVAL9)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# `make demo DEMO_EXTRAS=pandas` (the README's "Long logs" examples need pandas) adds the
# extra's packages to the venv, without rebuilding rankproof; the demo says so when missing.
DEMO_EXTRAS ?=
extra-requirements = $(BIN)/python -c "import sys, tomllib; extras = tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']; print('\n'.join(r for e in sys.argv[1:] for r in extras[e]))" $(1)

demo: $(DEMO_STAMP)
	$(if $(DEMO_EXTRAS),$(call extra-requirements,$(subst $(comma), ,$(DEMO_EXTRAS))) \
		| xargs $(BIN)/python -m pip install --quiet --no-compile)
	$(BIN)/rankproof demo
	@$(BIN)/python -c "import pandas" 2>/dev/null || printf '\n%s\n' \
		"The README's pandas examples need pandas: make demo DEMO_EXTRAS=pandas (or .venv/bin/pip install pandas)"

# The HTML report of the bundled Cranfield runs (bm25 as baseline) and screenshots
# 1280 px wide, under build/report-demo/ (Debian's chromium: apt-get install chromium).
CRANFIELD := src/rankproof/_data/cranfield
REPORT_DEMO := build/report-demo
CHROMIUM ?= chromium
CHROMIUM_FLAGS := --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
	--host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir=$(abspath $(REPORT_DEMO))/.chromium

report-demo: $(STAMP)
	mkdir -p $(REPORT_DEMO)
	cd $(CRANFIELD) && $(abspath $(BIN))/rankproof report qrels.txt bm25.run tfidf.run lmdirichlet.run \
		--label bm25=bm25.run --label tfidf=tfidf.run --label lmdirichlet=lmdirichlet.run --baseline bm25 \
		-o $(abspath $(REPORT_DEMO))/cranfield.html
	@ls -l $(REPORT_DEMO)/cranfield.html
	@command -v $(CHROMIUM) >/dev/null || { echo "no $(CHROMIUM): no screenshots (apt-get install chromium)"; exit 0; }; \
	page=file://$(abspath $(REPORT_DEMO))/cranfield.html; \
	$(CHROMIUM) $(CHROMIUM_FLAGS) --window-size=1280,1100 --screenshot=$(abspath $(REPORT_DEMO))/top.png "$$page" >/dev/null 2>&1; \
	$(CHROMIUM) $(CHROMIUM_FLAGS) --window-size=1280,9400 --screenshot=$(abspath $(REPORT_DEMO))/full.png "$$page" >/dev/null 2>&1; \
	$(CHROMIUM) $(CHROMIUM_FLAGS) --window-size=1280,9400 --screenshot=$(abspath $(REPORT_DEMO))/full-query-57.png "$$page#query=57" >/dev/null 2>&1; \
	ls -l $(REPORT_DEMO)/*.png

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .hypothesis benchmarks/data
	find src/rankproof \( -name '*.so' -o -name '*.c' \) -delete
