# Skyboard: `make test` and `make run` are the two commands a fresh clone needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test lint run demo bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

run: $(STAMP)
	$(PY) -m engine.demo opensky --seed 1

demo: $(STAMP)
	$(PY) -m engine.demo opensky --seed 1

bench: $(STAMP)
	$(PY) -m bench.playouts
	$(PY) -m bench.bots

clean:
	rm -rf $(VENV) build .pytest_cache .ruff_cache .hypothesis
