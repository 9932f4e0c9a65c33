# Skyboard: `make test` and `make run` are the two commands a fresh clone needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# gRPC stubs generated from proto/ (gitignored, never committed)
PROTO_SRC := $(wildcard proto/skyboard/v1/*.proto)
PROTO_GEN := $(PROTO_SRC:.proto=_pb2.py)

.PHONY: install compile test lint run demo bench clean browser docs docs-build

install: $(STAMP) $(PROTO_GEN) compile

# the search's hot modules compiled to C by mypyc (ai/native.py); rebuilt whenever a source is newer.
# Run as a script, not with -m: importing the `ai` package would import a stale compiled module first,
# which fails once the sources it was built from have changed their names
compile: $(STAMP)
	$(PY) ai/native.py build

$(STAMP): pyproject.toml clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -m pip install --quiet -e clients/python
	touch $(STAMP)

proto/%_pb2.py: proto/%.proto $(STAMP)
	$(PY) -m grpc_tools.protoc -I. --python_out=. --pyi_out=. --grpc_python_out=. $<

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) $(PROTO_GEN) compile browser
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

# the documentation site (mkdocs.yml, docs/): served with live reload on DOCS_ADDR; the tests build it --strict
DOCS_ADDR ?= 127.0.0.1:8001
docs: $(STAMP)
	$(VENV)/bin/mkdocs serve -a $(DOCS_ADDR)

docs-build: $(STAMP)
	$(VENV)/bin/mkdocs build --strict -d build/site

# Debian's chromium for the web client's browser tests (tests/webclient); never `playwright install`
browser:
	@test -x /usr/bin/chromium || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

run: $(STAMP) $(PROTO_GEN) compile
	$(PY) -m services.stack

demo: $(STAMP)
	$(PY) -m engine.demo opensky --seed 1

bench: $(STAMP) compile
	$(PY) -m bench.playouts
	$(PY) -m bench.bots

.PHONY: bench-load soak
bench-load: $(STAMP) $(PROTO_GEN)
	timeout 1800 $(PY) -m bench.load --json bench/results/load.json

soak: $(STAMP) $(PROTO_GEN)
	timeout 1800 $(PY) -m bench.soak --json bench/results/soak.json

clean:
	-$(PY) ai/native.py clean
	rm -rf $(VENV) build .pytest_cache .ruff_cache .hypothesis
	find proto -name '*_pb2*.py*' -delete
