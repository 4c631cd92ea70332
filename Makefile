# femb: `make demo` runs the flagship example, `make test` runs the linters, the type check,
# the API-reference build and the test suite (`make lint`, `make docs` run those parts alone).
# Each creates the virtual environment (.venv) and installs femb (editable) when needed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.femb-installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.venv/numba-cache

.PHONY: demo test test-fast test-long validate bench lint docs compile clean

# the public modules that `make lint` checks (ruff settings and the mypy file list: pyproject.toml)
LINT_PATHS := femb/__init__.py femb/model femb/results femb/solvers femb/mesh examples docs/conf.py tests/framework/test_public_api.py

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,plot,lint,docs,pardiso]"
	touch $(STAMP)

# compile the kernels of first runs (planar statics and dynamics, 3-D beam dynamics,
# jointed rigid bodies, superelements) into the kernel cache now, so that the first real
# run does not (`femb compile`; run it in the background with `make compile &` after
# installing)
compile: $(STAMP)
	$(VENV)/bin/femb compile

demo: $(STAMP)
	$(PY) examples/demo.py --out demo_out

test: lint docs
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/mypy

# the API reference (docs/_build/html/index.html); warnings are errors
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow and not long"

# the runs of several minutes (e.g. 10⁴-step energy runs of shells) that make test leaves out
test-long: $(STAMP)
	$(PY) -m pytest -q -m long

validate: $(STAMP)
	$(PY) -m femb.validation --report validation/report

# bench: Exudyn (the peer code of the comparison, never a femb dependency) comes with the
# "bench" extra; the side-by-side suite runs first at its small sizes and prints one table.
bench: $(STAMP)
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) benchmarks/peer_suite.py
	$(PY) benchmarks/startup_time.py
	$(PY) benchmarks/profile_steps.py --top 15
	$(PY) benchmarks/assembly_throughput.py
	$(PY) benchmarks/flexible_pendulum.py --check --profile 10 1000
	$(PY) benchmarks/joint_step_overhead.py

clean:
	rm -rf $(VENV) demo_out .pytest_cache .ruff_cache .mypy_cache docs/_build docs/_generated
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
