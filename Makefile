# The two commands of the README's quick start, and a few more for development.
.PHONY: run test setup build lint format release

# Runs the monitor once on the root feeds.yaml (installs the system libraries first when missing).
run: setup
	swift run monitor run --once

# Builds and runs every test.
test: setup
	swift build
	swift test

setup:
	@scripts/setup

build: setup
	swift build

release: setup
	swift build -c release

lint:
	swift format lint --strict --recursive Package.swift Sources Plugins Tests

format:
	swift format --in-place --recursive Package.swift Sources Plugins Tests
