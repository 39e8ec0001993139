# Oikos — the two commands that matter:
#   make run    build and open the desktop app on the default database
#   make test   formatting, lints and every test (including the desktop end to end)
# Both install what they need first (see `setup`).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
WASM := $(TARGET_DIR)/wasm32-unknown-unknown/ui/oikos-ui.wasm
UNAME := $(shell uname -s)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The wasm-bindgen CLI must match the crate version pinned in ui/Cargo.toml (read from Cargo.lock).
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ { getline; gsub(/"/, "", $$3); print $$3 }' Cargo.lock)
# binaryen's wasm-opt: the `wasm-opt` crate (0.116.1 is binaryen 116), installed into a directory of
# its own and called by that path, so neither a system binaryen on PATH (Debian's is older and
# breaks the module) nor another wasm-opt installed with cargo is used or replaced.
WASM_OPT_VERSION := 116
WASM_OPT_CRATE := 0.116.1
WASM_OPT_ROOT := $(HOME)/.cache/oikos-tools/binaryen-$(WASM_OPT_VERSION)
WASM_OPT := $(WASM_OPT_ROOT)/bin/wasm-opt
# wasm-opt's last input and output, so an unchanged UI is not optimised again (~10 s).
UI_OPT_CACHE := $(TARGET_DIR)/oikos-ui-opt

# Debian/Ubuntu packages: building the desktop (WebKitGTK, GTK, tray) …
APT_BUILD := libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libsoup-3.0-dev \
	libjavascriptcoregtk-4.1-dev libxdo-dev libssl-dev pkg-config build-essential curl
# … and testing it headless (virtual display, WebDriver, keychain, SSH lab; ping for the lab's
# gateway pre-flight; Python for the test notification service and the release's manifest script).
APT_TEST := xvfb xauth xdotool imagemagick webkit2gtk-driver dbus-x11 gnome-keyring libsecret-tools \
	python3 python3-dbus python3-gi python3-venv \
	openssh-server openssh-client iputils-ping procps util-linux

.PHONY: run build test eval setup setup-test ui check fmt lint bench bench-desktop bundle lab lab-down clean help

# The official Python MCP SDK, the client `nomos mcp serve` is tested with: a virtual environment
# outside the clone (a cache; `setup-test` rebuilds it when missing or of another version).
MCP_SDK_VERSION := 2.3.0
MCP_VENV := $(HOME)/.cache/oikos-mcp-venv
MCP_PYTHON := $(MCP_VENV)/bin/python
export OIKOS_MCP_PYTHON := $(MCP_PYTHON)

# Every native crate: the UI is built for wasm32 only (`ui` below) and linted there.
NATIVE := --workspace --exclude oikos-ui

help:
	@echo "make run    build and open the desktop app (database: \$$OIKOS_DB or the OS data dir)"
	@echo "make test   fmt check, clippy -D warnings, all tests incl. the desktop end to end"
	@echo "make eval   the agent's golden conversations (EVAL=name for some; NOMOS_EVAL_REAL=1 against a real model)"
	@echo "make bench  blast-radius, classifier, SSH executor, discovery, bounded-context, agent-overhead and Observe benchmarks"
	@echo "make bench-desktop  start-up, memory (next to a hello-world Tauri app) and idle CPU of the desktop app"
	@echo "make fmt    format the code"
	@echo "make bundle  release build and this platform's package (Linux: .deb; macOS: .app and .dmg)"
	@echo "make lab    start simulated Proxmox hosts on this machine (real sshd, stand-in pct/pvesh/pveam/qm/apt)"
	@echo "make lab-down  stop them (ARGS=--purge also removes the lab directory)"

run: build
	$(TARGET_DIR)/debug/oikos $(ARGS)

# One build for `make run` and `make test`: Cargo enables a dependency's features according to the
# packages and targets of each invocation, so `cargo run -p oikos` and `cargo test --workspace`
# would compile most dependencies twice. `run` builds exactly what `test` builds (the same packages,
# test targets included) and starts the binary from that build.
build: setup ui
	$(CARGO) test $(NATIVE) --no-run

test: setup setup-test ui
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy $(NATIVE) --all-targets -- -D warnings
	$(CARGO) clippy -p oikos --all-targets --features bench-hello -- -D warnings
	$(CARGO) clippy -p oikos-ui --target wasm32-unknown-unknown -- -D warnings
	$(CARGO) clippy -p oikos-ui --tests -- -D warnings
	$(CARGO) test $(NATIVE)
	# The UI's own logic (event folding, routes, forms) is plain Rust, tested natively.
	$(CARGO) test -p oikos-ui

# Nomos's golden conversations (nomos/evals), against the scripted provider and the lab; `make test`
# runs them too. With NOMOS_EVAL_REAL=1 and a provider configured, against that model: a pass rate.
eval:
	EVAL='$(EVAL)' $(CARGO) test -p nomos-cli --test evals -- --nocapture

bench: setup setup-test
	$(CARGO) bench -p nomos --bench blast_radius --bench ssh --bench discovery --bench context --bench agent --bench observe
	$(CARGO) bench -p nomos-policy --bench classify

# Release builds of Oikos and of a hello-world Tauri app, measured on a virtual display.
bench-desktop: setup setup-test ui
	$(CARGO) bench -p oikos --features bench-hello --bench desktop

fmt:
	$(CARGO) fmt --all

# This platform's package, from a release build: Linux .deb, macOS .app and .dmg (written under
# $(TARGET_DIR)/release/bundle/). Unsigned for the updater: release.yml signs with the CI key.
# The packaging is switched on here only, so `cargo build` never bundles.
COMMA := ,
BUNDLES := $(if $(filter Darwin,$(UNAME)),app$(COMMA)dmg,deb)
bundle: setup ui
	@command -v cargo-tauri >/dev/null || $(CARGO) install tauri-cli --version '^2' --locked
	cd src-tauri && $(CARGO) tauri build --bundles $(BUNDLES) --config '{"bundle":{"active":true}}'
	@ls -1 $(abspath $(TARGET_DIR))/release/bundle/*/* 2>/dev/null || true

# The lab: Proxmox hosts simulated by real sshd processes on 127.0.0.1 (see nomos/lab). They keep
# running until `make lab-down`. It needs sshd, ssh-keygen and flock; nothing is installed here, as
# installing openssh-server would also start the system's own sshd.
lab: build
	$(TARGET_DIR)/debug/nomos lab up $(ARGS)

lab-down: build
	$(TARGET_DIR)/debug/nomos lab down $(ARGS)

lint: setup
	mkdir -p ui/dist
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy $(NATIVE) --all-targets -- -D warnings
	$(CARGO) clippy -p oikos --all-targets --features bench-hello -- -D warnings
	$(CARGO) clippy -p oikos-ui --target wasm32-unknown-unknown -- -D warnings
	$(CARGO) clippy -p oikos-ui --tests -- -D warnings

# The UI: wasm32 build + wasm-bindgen + wasm-opt (no trunk).
# Written to a temporary directory first so a failed build never leaves a half-written ui/dist.
# Function names (the name section, a third of the file) are left out: the webview compiles less
# at every start; a panic's message still says what failed. wasm-opt -Oz takes another ~9 % off
# what the webview fetches and compiles at every start. Its result is reused while its input is
# unchanged (the input is recorded last, so an interrupted run never pairs it with a stale result).
ui: $(WASM)
	rm -rf ui/dist.tmp && mkdir -p ui/dist.tmp $(UI_OPT_CACHE)
	wasm-bindgen "$(WASM)" --target web --no-typescript --remove-name-section --remove-producers-section --out-dir ui/dist.tmp --out-name oikos_ui
	if ! cmp -s ui/dist.tmp/oikos_ui_bg.wasm $(UI_OPT_CACHE)/in.wasm || [ ! -f $(UI_OPT_CACHE)/out.wasm ]; then \
		rm -f $(UI_OPT_CACHE)/in.wasm && \
		$(WASM_OPT) -Oz ui/dist.tmp/oikos_ui_bg.wasm -o $(UI_OPT_CACHE)/out.wasm && \
		cp ui/dist.tmp/oikos_ui_bg.wasm $(UI_OPT_CACHE)/in.wasm; \
	fi
	cp $(UI_OPT_CACHE)/out.wasm ui/dist.tmp/oikos_ui_bg.wasm
	cp ui/static/* icons/icon.png ui/dist.tmp/
	@# Replaced only when it changed: the shell embeds ui/dist, and new files would rebuild it.
	if diff -rq ui/dist.tmp ui/dist >/dev/null 2>&1; then rm -rf ui/dist.tmp; else rm -rf ui/dist && mv ui/dist.tmp ui/dist; fi

$(WASM): FORCE
	$(CARGO) build -p oikos-ui --target wasm32-unknown-unknown --profile ui

FORCE:

# Installs the Debian/Ubuntu packages named in $(1) that are missing (nothing elsewhere).
define apt_install
	@if [ "$(UNAME)" = Linux ] && command -v apt-get >/dev/null; then \
		missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
		if [ -n "$$missing" ]; then \
			echo "installing:" $$missing; \
			$(SUDO) apt-get update -qq; \
			DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
		fi; \
	fi
endef

# Installs what building needs, only where it is missing: system packages, the wasm32 target, the
# wasm-bindgen CLI at the version in Cargo.lock and binaryen's wasm-opt (from the crate registry).
setup:
	$(call apt_install,$(APT_BUILD))
	@if [ "$(UNAME)" = Darwin ]; then \
		xcode-select -p >/dev/null 2>&1 || { echo "install the Xcode command line tools: xcode-select --install"; exit 1; }; \
	fi
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@if [ "$$(wasm-bindgen --version 2>/dev/null | awk '{print $$2}')" != "$(WASM_BINDGEN_VERSION)" ]; then \
		echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION)"; \
		$(CARGO) install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); \
	fi
	@if [ "$$($(WASM_OPT) --version 2>/dev/null | awk '{print $$3}')" != "$(WASM_OPT_VERSION)" ]; then \
		echo "installing wasm-opt $(WASM_OPT_CRATE) into $(WASM_OPT_ROOT); it compiles binaryen once (~10 min on 2 cores)"; \
		$(CARGO) install wasm-opt --version $(WASM_OPT_CRATE) --locked --force --root $(WASM_OPT_ROOT); \
	fi

# What the tests need beyond building: a virtual display, WebKit's WebDriver and tauri-driver
# (Linux only: there is no WebDriver for macOS's WKWebView).
setup-test:
	$(call apt_install,$(APT_TEST))
	@if [ "$(UNAME)" = Linux ]; then command -v tauri-driver >/dev/null || $(CARGO) install tauri-driver --locked; fi
	@$(MCP_PYTHON) -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "$(MCP_SDK_VERSION)")' 2>/dev/null \
		|| { echo "preparing the MCP test client in $(MCP_VENV)"; rm -rf $(MCP_VENV) && python3 -m venv $(MCP_VENV) \
		&& $(MCP_VENV)/bin/pip install -q --disable-pip-version-check 'mcp==$(MCP_SDK_VERSION)'; }

clean:
	$(CARGO) clean
	rm -rf ui/dist ui/dist.tmp
