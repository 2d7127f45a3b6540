# notch-web — see README.md.
#   make run    the demo board on loopback (a throwaway DSH home under .run/)
#   make test   every test: Go (-race), freshness and lint, Playwright; sets up what it can
#   make bench  benchmarks and the load tool
#   make screenshots  the README's screenshots (docs/screenshots/), on purpose only
#   make conformance  the real Claude Code, Codex and Gemini CLIs against the board
#                     (docs/conformance.md); RECORD=1 rewrites the recorded fixtures
#
# Overrides: ADDR=127.0.0.1:7341 make run (where the demo listens);
# NOTCH_PORT=7561 make test (the port of the browser tests' shared host);
# CHROMIUM=/path/to/chromium make test.

GO       ?= go
BIN      := bin/notch-web
LOAD     := bin/notch-load
ADDR     ?= 127.0.0.1:7340
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM_PATH := $(CHROMIUM)

.PHONY: all build run test test-setup test-fresh test-go test-browser screenshots icons bench fuzz \
	update-datastar generate fmt clean conformance conformance-setup

all: build

# templ's generated code is committed; this only refreshes it after an edit.
generate:
	$(GO) tool templ generate -log-level error

# bin/notch-load-hub links the hub (-tags notch_hub) for mesh's fan-in; the
# plain one is the floor's, spared nats-server's process sampler.
build: generate
	$(GO) build -trimpath -o $(BIN) ./cmd/notch-web
	$(GO) build -trimpath -tags notch_hub -o $(BIN)-hub ./cmd/notch-web
	$(GO) build -trimpath -o $(LOAD) ./cmd/notch-load
	$(GO) build -trimpath -tags notch_hub -o $(LOAD)-hub ./cmd/notch-load

# templ's output is committed: it is regenerated only when a .templ is
# newer than it (an edit), so a fresh clone's "make run" never builds templ.
TEMPL_GO := $(patsubst %.templ,%_templ.go,$(wildcard web/templates/*.templ))
web/templates/%_templ.go: web/templates/%.templ
	$(GO) tool templ generate -log-level error -f $<

# run builds only notch-web, and says what it is doing: the first build on a
# machine downloads the Go modules and compiles them (a few minutes). The
# host stops with make, even when only make's process is sent SIGINT (an
# IDE's Stop): scripts/run-under-make.sh.
run: $(TEMPL_GO)
	@if [ ! -x $(BIN) ]; then echo "make run: building $(BIN) — the first build downloads and compiles the Go modules, about 1 minute on a quiet machine, 4–5 on a busy 2-core one; later builds take seconds"; \
	else echo "make run: building $(BIN)"; fi
	@$(GO) build -trimpath -o $(BIN) ./cmd/notch-web
	@mkdir -p .run/dsh
	@echo "make run: the demo board at http://$(ADDR)/agents-notch/ (the pane: /agents-notch/pane), a throwaway DSH home in .run/dsh; Ctrl-C stops it"
	@scripts/run-under-make.sh ./$(BIN) --demo --addr $(ADDR) --dsh-home .run/dsh --patch examples/cordis.patch.yml

# The browser first: a machine without it learns so at once, not after
# minutes of Go tests.
test: test-setup test-fresh test-go test-browser

# What the browser tests need: Debian's Chromium (installed here when this
# runs as root with apt, else the one command to run is printed) and the
# npm packages of playwright/ (installed when missing or older than the lock).
test-setup: playwright/node_modules/.package-lock.json
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium (apt)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "make test needs Chromium at $(CHROMIUM); install it with: sudo apt-get install chromium" >&2; \
	    echo "(or point CHROMIUM= at another Chromium binary)" >&2; \
	    exit 1; \
	  fi; \
	fi
	@# The real terminals the Go tests type into (tmux, GNU screen, kitty
	@# under Xvfb): installed here as root with apt; elsewhere those tests
	@# say they were skipped and why.
	@missing=""; for p in tmux:tmux screen:screen kitty:kitty Xvfb:xvfb; do \
	  command -v $${p%%:*} >/dev/null || missing="$$missing $${p##*:}"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing$$missing (apt)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

playwright/node_modules/.package-lock.json: playwright/package.json playwright/package-lock.json
	cd playwright && npm ci --no-audit --no-fund

# Generated code matches its sources; formatting, vet, staticcheck and the
# module files are clean; the Windows and macOS builds compile, and so does
# the hub's build (-tags notch_hub, the embedded NATS server linked in).
# staticcheck reads the hub's build, which holds all the code but the plain
# build's --hub refusal (host/mesh/hub_none.go): read without the tag, the
# hub's helpers would count as unused.
test-fresh:
	$(GO) tool templ generate -check -log-level error
	$(GO) tool templ fmt -fail -log-level error web/templates
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) mod tidy -diff
	GOOS=windows $(GO) vet ./... && GOOS=darwin $(GO) vet ./...
	$(GO) vet -tags notch_hub ./...
	$(GO) tool staticcheck -tags notch_hub ./...
	GOOS=windows $(GO) vet -tags notch_hub ./... && GOOS=darwin $(GO) vet -tags notch_hub ./...

test-go:
	$(GO) test -race -count=1 ./...
	$(GO) test -race -count=1 -tags notch_hub ./host/mesh/ ./cmd/notch-web/

test-browser: build test-setup
	cd playwright && npx playwright test

bench: build
	./scripts/bench.sh

# The README's images: the board folded and open and the Settings pane, at
# 1280 and 390 px. Only this target writes docs/screenshots/; `make test`
# skips the spec and leaves the tree clean.
screenshots: build test-setup
	cd playwright && NOTCH_SCREENSHOTS=1 npx playwright test tests/screenshots.spec.ts

# The app's icons (web/static/icon*.{svg,png}), drawn from one list of shapes.
icons:
	$(GO) run scripts/icons/main.go

fuzz:
	./scripts/fuzz.sh 20s

# The Datastar client is committed (web/static/vendor/); refresh it only on
# purpose: fetched through the Go module proxy, its sha256 checked.
update-datastar:
	./scripts/update-datastar.sh

# The real agent CLIs, pinned in conformance/package.json, driven headless
# and in tmux against the stand-in model API and a fresh notch-web; the
# board's rows are checked after every step (docs/conformance.md).
# RECORD=1 also rewrites adapters/*/testdata/recorded/ (then run
# go test ./host -run TestReplayRecorded -update and review the diff).
conformance: build conformance-setup
	cd conformance && $(GO) test -tags conformance -count=1 -timeout 60m -v . $(if $(RECORD),-args -record)

conformance-setup: conformance/node_modules/.package-lock.json
	@if ! command -v tmux >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing tmux (apt)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null; \
	  else \
	    echo "make conformance needs tmux; install it with: sudo apt-get install tmux" >&2; exit 1; \
	  fi; \
	fi

# npm install --no-save, not npm ci: Qwen Code's optional clipboard
# package names a binary per platform, and the registry this was locked
# against serves only some of them, so the lock lacks the others and npm ci
# refuses it as out of sync. install takes the locked versions and leaves
# the lock as it is.
conformance/node_modules/.package-lock.json: conformance/package.json conformance/package-lock.json
	cd conformance && npm install --no-save --no-audit --no-fund

fmt:
	gofmt -w $$(git ls-files '*.go')
	$(GO) tool templ fmt -log-level error web/templates

clean:
	rm -rf bin .run playwright/test-results playwright/.tmp
