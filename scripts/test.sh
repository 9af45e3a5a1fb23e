#!/usr/bin/env bash
# Runs every test of gramlink, after scripts/setup.sh. Stops at the first failure.
#
#   0. the format (cargo fmt --check) and the library's docs (cargo doc, no broken link)
#   1. native: unit, integration and doc tests (cargo test)
#   2. wasm in Node 20 (wasm-bindgen-test-runner, the runner in .cargo/config.toml)
#   3. the same wasm tests in headless Chromium (chromedriver; options in webdriver.json)
#   4. npm test (the JS side), if package.json defines it
#   5. the web app end to end in headless Chromium (npm run test:e2e), if defined
#   6. the Python package and its Spark job in local mode (scripts/python.sh)
#   7. every fuzz target for FUZZ_SECS seconds (default 20) under libFuzzer and
#      AddressSanitizer (scripts/fuzz.sh), where a nightly toolchain is installed
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

stage_start=0
header() {
    printf '\n==== %s ====\n' "$*"
    stage_start=$SECONDS
}
footer() {
    printf -- '---- %s: ok (%ds)\n' "$1" "$((SECONDS - stage_start))"
}

header "setup"
bash scripts/setup.sh
footer "setup"

header "format: cargo fmt --check (rustfmt.toml)"
cargo fmt --check
footer "format"

header "docs: cargo doc of the library, every link resolved (all features, and none)"
RUSTDOCFLAGS="-D warnings" cargo doc -p gramlink --no-deps --all-features --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p gramlink --no-deps --no-default-features --quiet
footer "docs"

header "native tests: cargo test"
cargo test
footer "native tests"

# the features of the npm package's lab build (scripts/build-wasm.sh), a superset of the core's
wasm_test=(cargo test -p gramlink --target wasm32-unknown-unknown --no-default-features --features eval,twin,kuzu --tests)

header "wasm tests in Node: ${wasm_test[*]}"
(
    unset WASM_BINDGEN_USE_BROWSER
    "${wasm_test[@]}"
)
footer "wasm tests in Node"

header "wasm tests in headless Chromium: ${wasm_test[*]}"
# The runner reads browser capabilities from webdriver.json (relative to the test's
# working directory, so name it absolutely): headless Chromium as root needs --no-sandbox.
CHROMEDRIVER=/usr/bin/chromedriver \
WASM_BINDGEN_USE_BROWSER=1 \
WASM_BINDGEN_TEST_WEBDRIVER_JSON="$root/webdriver.json" \
    "${wasm_test[@]}"
footer "wasm tests in headless Chromium"

if node -e 'process.exit(require("./package.json").scripts?.test ? 0 : 1)' 2>/dev/null; then
    header "JS tests: npm test"
    npm test
    footer "JS tests"
else
    printf '\n(package.json defines no test script: no JS tests to run)\n'
fi

if node -e 'process.exit(require("./package.json").scripts?.["test:e2e"] ? 0 : 1)' 2>/dev/null; then
    header "web app end to end: npm run test:e2e"
    # playwright-core and uPlot (devDependencies, pinned); no browser download: Debian's chromium
    { [ -d node_modules/playwright-core ] && [ -d node_modules/axe-core ]; } || npm ci --no-audit --no-fund
    npm run test:e2e
    footer "web app end to end"
fi

header "Python package and Spark job: scripts/python.sh"
bash scripts/python.sh
footer "Python"

# The fuzz stage needs nightly (-Zsanitizer=address and libFuzzer's coverage
# passes); cargo-fuzz is not needed: scripts/fuzz.sh passes the flags it would.
# A crash fails the stage; new corpus inputs are not merged (MERGE=0).
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    header "fuzz: every target ${FUZZ_SECS:-20}s under AddressSanitizer (scripts/fuzz.sh)"
    ASAN=1 MERGE=0 STRICT=1 SECS="${FUZZ_SECS:-20}" bash scripts/fuzz.sh
    footer "fuzz"
else
    printf '\n(no nightly toolchain in rustup toolchain list: the fuzz stage is skipped; scripts/fuzz.sh needs nightly for -Zsanitizer=address)\n'
fi

printf '\nall test stages passed (%ds)\n' "$SECONDS"
