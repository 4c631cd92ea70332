# femb: `make demo` runs the flagship example, `make test` runs the test suite.
# Both create the virtual environment (.venv) and install femb (editable) when needed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.femb-installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.venv/numba-cache

.PHONY: demo test test-fast validate bench lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,plot]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py --out demo_out

test: $(STAMP)
	$(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

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
	rm -rf $(VENV) demo_out .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
