# The two set-up commands of the README:  `make sample` (main job)  and  `make test`.
# Both create .venv and install kgverify with its dev extra on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: sample test lint unit clean-venv

$(BIN)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

sample: $(BIN)/.installed
	$(BIN)/kgverify sample
	$(BIN)/kgverify grade --sample --fhir

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

unit: $(BIN)/.installed
	$(BIN)/pytest tests/unit

clean-venv:
	rm -rf $(VENV)
