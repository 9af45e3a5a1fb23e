#!/usr/bin/env bash
# Builds the npm package's wasm: pkg/web (ES module for browsers, `init()` fetches the
# wasm) and pkg/node (ES module for Node, loads the wasm from disk). Needs the tools of
# scripts/setup.sh; wasm-opt (Debian's binaryen) shrinks the wasm when it is installed
# (before wasm-bindgen: see below).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '[build-wasm] %s\n' "$*"; }

# Two builds of one crate, profile wasm-release (Cargo.toml: opt-level "s": size against speed, measured there):
#   gramlink      the core package ("gramlink"): strings and records, owner and matcher,
#                 linkParties, signing; no feature (budget: 300 KB gzipped, checked by
#                 scripts/check-pkg.mjs)
#   gramlink_lab  the lab ("gramlink/lab"): the core's API and runScenario, makeTwin,
#                 Kuzu's roles (features eval, twin, kuzu)
# The second build reuses the first one's dependencies; only gramlink and the lab's
# own dependencies compile again. wasm-bindgen names its outputs after its input, so
# both land in pkg/web and pkg/node side by side.
builds=("gramlink:" "gramlink_lab:eval,twin,kuzu")
out="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm-release"
rm -rf pkg/web pkg/node

bindgen() {
    step "wasm-bindgen --target web -> pkg/web ($1)"
    wasm-bindgen --target web --out-dir pkg/web "$1"
    step "wasm-bindgen --target experimental-nodejs-module -> pkg/node"
    wasm-bindgen --target experimental-nodejs-module --out-dir pkg/node "$1"
}

# Both targets of build $1 must instantiate in Node (pkg/web from its bytes, as a
# worker could).
loads() {
    NAME="$1" node --input-type=module -e '
        import { readFileSync } from "node:fs";
        const name = process.env.NAME;
        await import(`${process.cwd()}/pkg/node/${name}.js`);
        const web = await import(`${process.cwd()}/pkg/web/${name}.js`);
        web.initSync({ module: readFileSync(`pkg/web/${name}_bg.wasm`) });' 2>&1
}

# wasm-opt runs on cargo's output, BEFORE wasm-bindgen. After wasm-bindgen (as
# wasm-pack does it), Debian bookworm's binaryen 108 rebinds wasm-bindgen's
# `__wbindgen_externrefs` export to the funcref table and the module fails to start
# ("WebAssembly.Table.set(): Argument 1 is invalid for table"). Before wasm-bindgen
# there is no such table yet; the result is kept only if both builds load (npm test
# then runs the whole protocol on it). GRAMLINK_WASM_OPT=0 skips it.
build_one() {
    local name="$1" features="$2"
    step "$name: cargo build -p gramlink --profile wasm-release --target wasm32-unknown-unknown --no-default-features --features '$features' --lib"
    cargo build -p gramlink --profile wasm-release --target wasm32-unknown-unknown --no-default-features --features "$features" --lib
    # a copy named for the build: wasm-bindgen names its outputs after its input
    local wasm="$out/$name/$name.wasm" opt="$out/wasm-opt/$name.wasm" why wasm_opt_version
    mkdir -p "$(dirname "$wasm")"
    cp "$out/gramlink.wasm" "$wasm"
    rm -f "$opt"
    mkdir -p "$(dirname "$opt")"
    if [ "${GRAMLINK_WASM_OPT:-1}" = 0 ]; then
        step "GRAMLINK_WASM_OPT=0: wasm left unoptimized"
    elif ! command -v wasm-opt >/dev/null 2>&1; then
        step "wasm-opt not found (Debian package binaryen): wasm left unoptimized"
    else
        wasm_opt_version="$(wasm-opt --version | head -n1)"
        # the features rustc enables by default for wasm32-unknown-unknown. -Os, as
        # the crate's opt-level (-Oz after "s" saves little and inlines less).
        # --one-caller-inline-max-function-size 0 (the
        # core: 43 KB gzipped smaller than without it at -Oz): binaryen otherwise
        # inlines every function that has one caller, whatever its size, and a
        # per-query function (the matcher's lattice query) inlined into the loop that
        # calls it 150,000 times runs that whole first call in V8's baseline code: V8
        # tiers functions up between calls, not inside one. Kept apart, the query is
        # optimized after its first calls (NAMES match, first run in Node: about 0.4 s
        # faster, measured at -O3).
        if ! wasm-opt -Os --one-caller-inline-max-function-size 0 \
            --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
            --enable-sign-ext --enable-reference-types --enable-multivalue \
            -o "$opt" "$wasm" 2>"$opt.log"; then
            step "WARNING: $wasm_opt_version failed; keeping the wasm unoptimized:"
            sed 's/^/[build-wasm]   /' "$opt.log" | head -n 5
            rm -f "$opt"
        fi
        rm -f "$opt.log"
    fi

    if [ -f "$opt" ]; then
        if bindgen "$opt" && why="$(loads "$name")"; then
            step "wasm-opt -Os ($wasm_opt_version) before wasm-bindgen: $(stat -c %s "$wasm") -> $(stat -c %s "$opt") bytes (cargo output)"
        else
            step "WARNING: the wasm optimized by $wasm_opt_version does not load; keeping it unoptimized:"
            printf '%s\n' "${why:-wasm-bindgen failed}" | grep -m1 -E 'Error|error' | sed 's/^/[build-wasm]   /' || true
            bindgen "$wasm"
        fi
    else
        bindgen "$wasm"
    fi
    if ! why="$(loads "$name")"; then
        printf '%s\n' "$why" >&2
        step "ERROR: the package does not load"
        exit 1
    fi
    step "pkg/web/${name}_bg.wasm: $(stat -c %s pkg/web/${name}_bg.wasm) bytes, $(gzip -9 -c pkg/web/${name}_bg.wasm | wc -c) gzipped"
}

for b in "${builds[@]}"; do
    build_one "${b%%:*}" "${b#*:}"
done
step "done: pkg/web, pkg/node"
