# notch-web — see README.md.
#   make run    the demo board on loopback (a throwaway DSH home under .run/)
#   make test   every test: Go (-race), generated-code freshness, Playwright
#   make bench  benchmarks and the load tool
#   make screenshots  the README's screenshots (docs/screenshots/), on purpose only

GO       ?= go
BIN      := bin/notch-web
LOAD     := bin/notch-load
ADDR     ?= 127.0.0.1:7340
# The Datastar client is not a Go package: go mod tidy would drop a require
# line for it, so its version lives here and in scripts/fetch-datastar.sh.
DATASTAR := web/static/vendor/datastar.js

.PHONY: all build run test test-go test-fresh test-browser bench fuzz datastar generate fmt clean screenshots icons

all: build

datastar: $(DATASTAR)
$(DATASTAR): scripts/fetch-datastar.sh
	./scripts/fetch-datastar.sh

generate:
	$(GO) tool templ generate

build: datastar generate
	$(GO) build -trimpath -o $(BIN) ./cmd/notch-web
	$(GO) build -trimpath -o $(LOAD) ./cmd/notch-load

run: build
	mkdir -p .run/dsh
	./$(BIN) --demo --addr $(ADDR) --dsh-home .run/dsh --patch examples/cordis.patch.yml

test: test-fresh test-go test-browser

# Generated templ code must match its sources, and the sources be formatted.
test-fresh:
	$(GO) tool templ generate -check
	$(GO) tool templ fmt -fail web/templates
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) build ./... && GOOS=darwin $(GO) build ./...

test-go: datastar
	$(GO) test -race -count=1 ./...

test-browser: build
	cd playwright && npx playwright test

bench: build
	./scripts/bench.sh

# The README's images: the board folded and open and the Settings pane, at
# 1280 and 390 px. Only this target writes docs/screenshots/; `make test`
# skips the spec and leaves the tree clean.
screenshots: build
	cd playwright && NOTCH_SCREENSHOTS=1 npx playwright test tests/screenshots.spec.ts

# The app's icons (web/static/icon*.{svg,png}), drawn from one list of shapes.
icons:
	$(GO) run scripts/icons/main.go

fuzz:
	./scripts/fuzz.sh 20s

fmt:
	gofmt -w $$(git ls-files '*.go')
	$(GO) tool templ fmt web/templates

clean:
	rm -rf bin .run playwright/test-results playwright/.tmp
