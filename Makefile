# The two commands of the README's quick start, and a few more for development.
.PHONY: run test setup setup-tests build lint format release install uninstall

# Runs the monitor once on the root feeds.yaml (installs the system libraries first when missing).
run: setup
	swift run monitor run --once

# Builds and runs every test (installs first what they drive when missing).
test: setup-tests
	swift build
	swift test

# What building and running need: libyaml's and SQLite's headers.
setup:
	@scripts/setup

# That, and what the tests drive: tmux, PostgreSQL, systemd-analyze, Prometheus, python's prometheus_client.
setup-tests:
	@scripts/setup --tests

build: setup
	swift build

# Only the products: the tests' support modules reach the core's internal names (`@testable`), which an optimised
# build does not export.
release: setup
	swift build -c release --product monitor
	swift build -c release --product monitor-standin

lint:
	swift format lint --strict --recursive Package.swift Sources Plugins Tools Tests

format:
	swift format --in-place --recursive Package.swift Sources Plugins Tools Tests

# `make install` builds an optimised binary and installs it with its shell completions under PREFIX
# (default /usr/local), stripped, and beside it monitor-standin, the stand-in of the README's offline demo; DESTDIR is prepended to every path, for packaging. `make uninstall` removes them.
PREFIX ?= /usr/local
DESTDIR ?=
# The Swift runtime is linked into the binary, so it runs where no toolchain is installed. It stays a
# position-independent executable (address randomisation of its own code), though a fixed address would start
# 0.8 ms sooner (BENCHMARKS.md, figure 4). More flags (`-j 1` on a busy machine) go in SWIFT_BUILD_FLAGS.
RELEASE_FLAGS = -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS)
BINDIR = $(DESTDIR)$(PREFIX)/bin
BASH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install: setup
	swift build $(RELEASE_FLAGS) --product monitor
	swift build $(RELEASE_FLAGS) --product monitor-standin
	install -d "$(BINDIR)" "$(BASH_COMPLETIONS)" "$(ZSH_COMPLETIONS)" "$(FISH_COMPLETIONS)"
	bin="$$(swift build $(RELEASE_FLAGS) --show-bin-path)" && install -s -m 755 "$$bin/monitor" "$$bin/monitor-standin" "$(BINDIR)"
	"$(BINDIR)/monitor" --generate-completion-script bash > "$(BASH_COMPLETIONS)/monitor"
	"$(BINDIR)/monitor" --generate-completion-script zsh > "$(ZSH_COMPLETIONS)/_monitor"
	"$(BINDIR)/monitor" --generate-completion-script fish > "$(FISH_COMPLETIONS)/monitor.fish"

uninstall:
	rm -f "$(BINDIR)/monitor" "$(BINDIR)/monitor-standin" "$(BASH_COMPLETIONS)/monitor" "$(ZSH_COMPLETIONS)/_monitor" \
		"$(FISH_COMPLETIONS)/monitor.fish"
