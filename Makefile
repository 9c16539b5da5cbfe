# The two commands: `make serve` and `make test`. Each installs what is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

CHROMIUM := /usr/bin/chromium
ESBUILD := node_modules/.bin/esbuild
DEBUG_SITE := target/debug/site
RELEASE_SITE := target/release/site
PORT ?= 8080

.PHONY: help setup packages build serve test checks check lint unit-ts storage-policies e2e screenshots bench lighthouse fuzz clean

help:
	@echo "make serve   build and serve the site on http://127.0.0.1:$(PORT)"
	@echo "make test    run every test (Rust, TypeScript, browser)"
	@echo "make build   build the site into dist/"
	@echo "make lint    cargo fmt --check, clippy, tsc --noEmit, stale schemas, the GitHub workflows"
	@echo "make check   build the site and check its links, images and headings"
	@echo "make screenshots   full-page screenshots of every route at 320, 375, 768 and 1280 px, and a contact sheet per width"
	@echo "make bench   build speed against Hugo, this site's build and reload times, page weight"
	@echo "make fuzz    each fuzz target for FUZZ_SECONDS (default 120) seconds"

# npm ci from the committed lockfile, again whenever the lockfile changes.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

setup: node_modules/.installed

# Debian packages the tests use, each named by a file it installs: Chromium for
# the browser tests, PostgreSQL for the storage policies, nginx (with its brotli
# module) for serving the site as each host does. Installed when missing and we
# are root.
DEBIAN_PACKAGES := chromium:$(CHROMIUM) \
  postgresql:/usr/lib/postgresql/*/bin/postgres \
  nginx:/usr/sbin/nginx \
  libnginx-mod-http-brotli-static:/usr/lib/nginx/modules/ngx_http_brotli_static_module.so
packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do ls $${p#*:} >/dev/null 2>&1 || missing="$$missing $${p%%:*}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing Debian packages:$$missing"; \
	    apt-get -o DPkg::Lock::Timeout=300 update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq $$missing >/dev/null; \
	  else \
	    echo "Missing Debian packages:$$missing (apt-get install$$missing)"; exit 1; \
	  fi; \
	fi

build: setup
	cargo build --release --quiet
	$(RELEASE_SITE) build

serve: setup
	cargo build --release --quiet
	$(RELEASE_SITE) serve --host 127.0.0.1 --port $(PORT)

# Builds into a scratch folder (dist/ is left alone) and checks the result.
check: setup
	cargo build --quiet
	$(DEBUG_SITE) build --strict-budgets --out .site/check-dist
	$(DEBUG_SITE) check --out .site/check-dist

screenshots: setup packages
	cargo build --quiet
	SITE_BIN=$(DEBUG_SITE) node e2e/screenshots.mjs

# Benchmarks: a Markdown report on stdout and in bench/results/latest.md.
bench: setup packages
	cargo build --release --quiet
	python3 bench/run.py

# Fuzzing, not part of `make test`: every target of fuzz/ runs FUZZ_SECONDS,
# from its corpus (fuzz/corpus/, kept between runs) and its seeds. An input that
# panics, or takes over 10 s, is written to fuzz/artifacts/<target>/; every
# target runs even when one fails, and the exit code says whether any did.
# cargo-fuzz needs nightly's flags: the nightly toolchain when installed, else
# the stable one with RUSTC_BOOTSTRAP.
FUZZ_SECONDS ?= 120
FUZZ_TARGETS := yaml_page front_matter storage_key storage_upload
FUZZ_SEEDS_yaml_page := content/pages generator/tests/fixtures generator/tests/broken
FUZZ_SEEDS_front_matter := content/pages generator/tests/fixtures
FUZZ_SEEDS_storage_key := fuzz/seeds/storage_key
FUZZ_SEEDS_storage_upload := fuzz/seeds/storage_upload
FUZZ_TOOLCHAIN := $(shell rustup toolchain list 2>/dev/null | grep -q '^nightly' && echo +nightly)
define fuzz_target
	@mkdir -p fuzz/corpus/$(1) && echo "fuzz: $(1) for $(FUZZ_SECONDS) s"
	@RUSTC_BOOTSTRAP=$(if $(FUZZ_TOOLCHAIN),,1) cargo $(FUZZ_TOOLCHAIN) fuzz run --sanitizer none $(1) \
	  fuzz/corpus/$(1) $(FUZZ_SEEDS_$(1)) -- -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 || echo $(1) >> .site/fuzz-failed

endef
fuzz: setup
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	@mkdir -p .site && rm -f .site/fuzz-failed
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_target,$(t)))
	@if [ -s .site/fuzz-failed ]; then echo "fuzz: crashes in $$(tr '\n' ' ' < .site/fuzz-failed)(fuzz/artifacts/)"; exit 1; fi

# Lighthouse scores of the spec's routes, mobile and desktop (about 10 minutes).
lighthouse: setup packages
	cargo build --quiet
	SITE_BIN=$(DEBUG_SITE) node bench/lighthouse.mjs

lint: setup
	cargo fmt --all -- --check
	cargo clippy --quiet --all-targets -- -D warnings
	node_modules/.bin/tsc --noEmit -p .
	cargo run --quiet -- schema --check
	node .ci/lint-workflows.mjs
	node --test .ci/

# Unit tests of the islands' pure TypeScript modules, compiled by esbuild for Node.
unit-ts: setup
	@rm -rf .site/unit
	@$(ESBUILD) $$(find islands -name '*.test.ts' -o -name '*.test.tsx') --bundle --platform=node \
	  --format=esm --outbase=islands --outdir=.site/unit --out-extension:.js=.mjs --log-level=warning
	node --test $$(find .site/unit -name '*.test.mjs' | sort)

# The production storage migration against a real PostgreSQL.
storage-policies: setup packages
	node --test supabase/tests/

e2e: setup packages
	cargo build --quiet
	SITE_BIN=$(DEBUG_SITE) node --test --test-concurrency=2 $$(ls e2e/*.test.mjs | sort)

# The Debian packages install while the Rust and TypeScript checks run: only the
# storage policies and the browser tests need them.
test:
	$(MAKE) --no-print-directory -j2 packages checks
	$(MAKE) --no-print-directory storage-policies
	$(MAKE) --no-print-directory e2e

checks: lint
	cargo test --quiet
	$(MAKE) --no-print-directory check
	$(MAKE) --no-print-directory unit-ts

clean:
	rm -rf dist .site target/release/site
