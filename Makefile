# gasoline — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/gasoline-mcp/gasoline/internal/version.Version=$(VERSION)
FUZZTIME ?= 10s

.DEFAULT_GOAL := help

help: ## Show this help
	@grep -hE '^[a-z][a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

build: ## Build bin/gasoline (daemon + CLI) and bin/gasoline-mcp (the stdio bridge)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/gasoline ./cmd/daemon
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/gasoline-mcp ./cmd/bridge

run: build ## Build, start the daemon in the background, and print the agent config
	@./bin/gasoline daemon start
	@scripts/agent-config.sh "$(CURDIR)/bin/gasoline-mcp"

stop: ## Stop the background daemon
	@./bin/gasoline daemon stop

test: check ## Run every test: vet/gofmt, go test -race, SDK conformance, extension JS, browser e2e, short fuzz
	$(GO) test -race -count=1 ./...
	cd test/conformance && $(GO) test -race -count=1 ./...
	node --test extension/test/
	$(MAKE) --no-print-directory e2e
	$(MAKE) --no-print-directory fuzz

check: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd test/conformance && $(GO) vet ./...
	@if [ -f test/e2e/go.mod ]; then cd test/e2e && $(GO) vet ./...; fi

e2e: ## Browser end-to-end tests in headless Chromium with the real extension
	@if [ -f test/e2e/go.mod ]; then cd test/e2e && $(GO) test -count=1 -timeout 20m ./...; else echo "no browser e2e tests yet"; fi

fuzz: ## Run each fuzz target briefly (FUZZTIME=10s)
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeMessage$$' -fuzztime $(FUZZTIME) ./pkg/protocol
	$(GO) test -run '^$$' -fuzz '^FuzzQueryResult$$' -fuzztime $(FUZZTIME) ./internal/server
	$(GO) test -run '^$$' -fuzz '^FuzzMCP$$' -fuzztime $(FUZZTIME) ./internal/server
	$(GO) test -run '^$$' -fuzz '^FuzzPeek$$' -fuzztime $(FUZZTIME) ./internal/bridge
	$(GO) test -run '^$$' -fuzz '^FuzzLineReader$$' -fuzztime $(FUZZTIME) ./internal/bridge
	$(GO) test -run '^$$' -fuzz '^FuzzSlice$$' -fuzztime $(FUZZTIME) ./internal/output
	$(GO) test -run '^$$' -fuzz '^FuzzExtractProvenance$$' -fuzztime $(FUZZTIME) ./internal/output

bench: ## Measure the SPEC section 8 figures and print a table (p50/p99), real-browser rows last
	$(GO) run ./scripts/bench
	@if [ -f test/e2e/go.mod ]; then cd test/e2e && $(GO) run ./cmd/browserbench; fi

clean: ## Remove build output
	rm -rf bin .bench

.PHONY: help build run stop test check e2e fuzz bench clean
