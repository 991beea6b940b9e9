# gasoline — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/gasoline-mcp/gasoline/internal/version.Version=$(VERSION)
FUZZTIME ?= 50000x

.DEFAULT_GOAL := help

help: ## Show this help
	@grep -hE '^[a-z][a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

build: ## Build bin/gasoline (daemon + CLI) and bin/gasoline-mcp (the stdio bridge)
	@echo "Building bin/gasoline and bin/gasoline-mcp (a first build compiles every dependency: a minute or more on a busy machine)"
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/gasoline ./cmd/daemon
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/gasoline-mcp ./cmd/bridge

run: build ## Build, start the daemon in the background, and say how to connect an agent
	@echo "Starting the daemon (a no-op if one is running already)"
	@./bin/gasoline daemon start
	@echo
	@./bin/gasoline config
	@echo "Then load the extension (README, 'Load the extension'), run ./bin/gasoline pair, and check everything with ./bin/gasoline doctor."

install: ## Install gasoline and gasoline-mcp by those names into $GOBIN (default: $(go env GOPATH)/bin)
	@dir="$$($(GO) env GOBIN)"; dir="$${dir:-$$($(GO) env GOPATH)/bin}"; mkdir -p "$$dir" && \
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o "$$dir/gasoline" ./cmd/daemon && \
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o "$$dir/gasoline-mcp" ./cmd/bridge && \
	echo "installed $$dir/gasoline and $$dir/gasoline-mcp"

DIST_FLAGS ?=

dist: ## Build a release into dist/: both binaries for linux/darwin (x64, arm64) and windows x64, archives, npm packages (npm pack), the extension's store zip, SHA256SUMS (DIST_FLAGS='-platforms linux/amd64')
	$(GO) run ./scripts/dist -pack $(DIST_FLAGS)

stop: ## Stop the background daemon
	@./bin/gasoline daemon stop

test: check ## Run every test: vet/gofmt, go test -race, SDK conformance, content-script bundles not stale, npm MCP clients, extension JS, browser e2e, short fuzz
	$(GO) test -race -count=1 ./...
	cd test/conformance && $(GO) test -race -count=1 ./...
	cd scripts/bundle && $(GO) test -race -count=1 ./...
	$(MAKE) --no-print-directory npm-test
	node --test extension/test/
	$(MAKE) --no-print-directory e2e
	$(MAKE) --no-print-directory fuzz

# Platforms the binaries build for: each is vetted, tests included, so that a
# file that only builds on one of them says so with a build tag.
VET_PLATFORMS := linux darwin windows

check: ## gofmt, and go vet on every platform the binaries build for
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@for os in $(VET_PLATFORMS); do echo "go vet ./... (GOOS=$$os)"; GOOS=$$os $(GO) vet ./... || exit 1; done
	cd test/conformance && $(GO) vet ./...
	cd scripts/bundle && $(GO) vet ./...
	@if [ -f test/e2e/go.mod ]; then cd test/e2e && $(GO) vet ./...; fi

NPM_DIR := test/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.package-lock.json

# npm runs on the machine's Node (20 may do), while the Inspector and the
# conformance suite declare Node 22, which the locked "node" package brings
# and the tests run on: npm's EBADENGINE warnings about that are expected,
# so only errors are printed.
$(NPM_STAMP): $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

npm-deps: $(NPM_STAMP) ## Install test/npm's locked packages (MCP TypeScript SDK, Inspector, conformance, Node 22) when the lock changed

npm-test: build npm-deps ## Official MCP clients from npm (Inspector CLI, TypeScript SDK) against bin/, on the Node 22 of test/npm
	cd $(NPM_DIR) && GASOLINE_TEST_BIN_DIR=$(CURDIR)/bin ./node_modules/.bin/node --test

# E2E_MODES are the ways make e2e runs the browser suite, in order: headless
# Chromium, then headed Chromium on an Xvfb display the tests start (as a
# person sees it: window focus, tab groups, background tabs). E2E_MODES=headless
# runs one; E2E_RUN=TestX runs some tests.
E2E_MODES ?= headless headed
E2E_RUN ?= .

e2e: npm-deps ## Browser end-to-end tests with the real extension: headless Chromium, then headed on Xvfb (E2E_MODES, E2E_RUN); a line per test as it ends, a failed test's whole output
	@for d in react shadow; do if [ -f test/e2e/testdata/$$d/package-lock.json ]; then npm ci --prefix test/e2e/testdata/$$d --no-audit --no-fund --loglevel=error || exit 1; fi; done
	@if [ ! -f test/e2e/go.mod ]; then echo "no browser e2e tests yet"; exit 0; fi; \
	for mode in $(E2E_MODES); do \
	  headed=0; [ "$$mode" = headed ] && headed=1; \
	  if [ $$headed = 1 ] && ! command -v Xvfb >/dev/null 2>&1; then \
	    if [ "$$GASOLINE_REQUIRE_BROWSER" = 1 ]; then echo "headed e2e needs Xvfb: apt-get install xvfb"; exit 1; fi; \
	    echo "skipping the headed e2e run: no Xvfb (apt-get install xvfb)"; continue; \
	  fi; \
	  echo "=== e2e, $$mode Chromium"; start=$$(date +%s); \
	  (cd test/e2e && set -o pipefail && GASOLINE_HEADED=$$headed $(GO) test -json -count=1 -timeout 30m -run '$(E2E_RUN)' ./... | $(GO) run ./cmd/progress) || exit 1; \
	  echo "=== e2e, $$mode Chromium: passed in $$(( $$(date +%s) - start )) s"; \
	done

FUZZ_TARGETS := \
	./pkg/protocol:FuzzDecodeMessage \
	./internal/server:FuzzQueryResult \
	./internal/server:FuzzMCP \
	./internal/server:FuzzEvents \
	./internal/capture:FuzzFastDecode \
	./internal/extauth:FuzzParseAuthorization \
	./internal/extauth:FuzzOpen \
	./internal/bridge:FuzzPeek \
	./internal/bridge:FuzzLineReader \
	./internal/output:FuzzSlice \
	./internal/output:FuzzExtractProvenance \
	./internal/tools:FuzzFenceStrip \
	./internal/tools:FuzzDecodeArgs \
	./internal/tools:FuzzArgumentsOf \
	./internal/tools:FuzzPlainString \
	./internal/testgen:FuzzEscape \
	./internal/result:FuzzKeepChanged \
	./internal/result:FuzzMayNameTabID

fuzz: ## Run every fuzz target for FUZZTIME executions (a count, steady under load), all of them even if one fails
	@scripts/fuzz.sh $(FUZZTIME) $(FUZZ_TARGETS)

SOAK_DURATION ?= 3m
BENCH_MARGIN ?= 0.3

soak: ## Run every fault of issue 7 at once for SOAK_DURATION (default 3m) and print the counts; fails on any violation
	SOAK_DURATION=$(SOAK_DURATION) $(GO) run ./scripts/soak

bench: ## Measure latency, throughput and memory against their targets; print a table (p50/p99), real-browser rows last (Firefox's beside Chromium's when firefox-esr is installed; else a line says they are left out)
	$(GO) run ./scripts/bench
	@if [ -f test/e2e/go.mod ]; then cd test/e2e && $(GO) run ./cmd/browserbench; fi

bench-check: ## Short bench of the command path: fails when a row's ratio to its floor (same run) is past its guard by more than BENCH_MARGIN (0.3); paste its output in the note of any change to the command path
	$(GO) run ./scripts/bench -check -margin $(BENCH_MARGIN) -n 500 -throughput 1s -only direct,bridged,cycle,dispatch

bench-pages: ## Measure what the extension costs each page load (python3-doc pages, 20 iframes): main-thread and load time with and without it (PAGEBENCH_FLAGS='-n 15')
	cd test/e2e && $(GO) run ./cmd/pagebench $(PAGEBENCH_FLAGS)

generate: ## Regenerate every generated file (go generate ./...): extension/contract.js, internal/extcontract/version.go, internal/toolpolicy/table.go, extension/capture/secrets.js, extension/capture/fields.js, internal/capture/fields_gen.go, extension/dist/; make test fails while one is stale
	$(GO) generate ./...

# scripts/bundle is a module of its own: esbuild is a tool of the repository,
# not a dependency of the product (go generate ./... runs it too: internal/tools/generate.go, after the generated files it bundles).
bundle: ## Regenerate the extension's minified content-script bundles (extension/dist/) from their sources, then the Firefox build (build/firefox/, not committed); make test fails while the bundles are stale
	cd scripts/bundle && $(GO) run .
	$(GO) run ./scripts/firefox

icons: ## Redraw the extension's icons (extension/icons/*.png) with scripts/icons
	$(GO) run ./scripts/icons

axe: ## Refresh the accessibility audit's axe-core (extension/audit/axe.min.js) from npm and pin its version and SHA-256 (AXE_VERSION=4.14.1 for one version)
	./scripts/axe.sh

clean: ## Remove build output
	rm -rf bin .bench dist build

.PHONY: help build run install dist stop test check generate npm-deps npm-test e2e fuzz soak bench bench-check bench-pages bundle icons axe clean
