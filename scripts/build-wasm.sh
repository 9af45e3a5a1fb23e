#!/usr/bin/env bash
# Builds the npm package's wasm: pkg/web (ES module for browsers, `init()` fetches the
# wasm) and pkg/node (ES module for Node, loads the wasm from disk). Needs the tools of
# scripts/setup.sh; wasm-opt (Debian's binaryen) shrinks the wasm when it is installed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '[build-wasm] %s\n' "$*"; }

step "cargo build --release --target wasm32-unknown-unknown --no-default-features --lib"
cargo build --release --target wasm32-unknown-unknown --no-default-features --lib
wasm=target/wasm32-unknown-unknown/release/gramlink.wasm

rm -rf pkg/web pkg/node
step "wasm-bindgen --target web -> pkg/web"
wasm-bindgen --target web --out-dir pkg/web "$wasm"
step "wasm-bindgen --target experimental-nodejs-module -> pkg/node"
wasm-bindgen --target experimental-nodejs-module --out-dir pkg/node "$wasm"

# wasm-opt after wasm-bindgen, as wasm-pack does. Some binaryen versions (Debian
# bookworm's 108 among them) rebind wasm-bindgen's `__wbindgen_externrefs` export to the
# funcref table, and the module then fails to start ("WebAssembly.Table.set(): Argument 1
# is invalid for table"); so the optimized module must load in Node, or it is discarded.
loads() {
    node --input-type=module -e '
        import { readFileSync } from "node:fs";
        await import(process.cwd() + "/pkg/node/gramlink.js");
        const web = await import(process.cwd() + "/pkg/web/gramlink.js");
        web.initSync({ module: readFileSync("pkg/web/gramlink_bg.wasm") });' 2>&1
}
if ! command -v wasm-opt >/dev/null 2>&1; then
    step "wasm-opt not found (Debian package binaryen): wasm left unoptimized"
else
    wasm_opt_version="$(wasm-opt --version | head -n1)"
    orig=pkg/web/gramlink_bg.wasm
    before=$(stat -c %s "$orig")
    # the features rustc enables by default for wasm32-unknown-unknown
    if wasm-opt -Oz \
        --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-reference-types --enable-multivalue \
        -o "$orig.opt" "$orig" 2>"$orig.opt.log"; then
        cp "$orig" "$orig.unopt"
        cp "$orig.opt" pkg/web/gramlink_bg.wasm
        cp "$orig.opt" pkg/node/gramlink_bg.wasm
        if why="$(loads)"; then
            step "wasm-opt -Oz ($wasm_opt_version): $before -> $(stat -c %s "$orig") bytes"
        else
            cp "$orig.unopt" pkg/web/gramlink_bg.wasm
            cp "$orig.unopt" pkg/node/gramlink_bg.wasm
            step "WARNING: the wasm optimized by $wasm_opt_version does not load; keeping it unoptimized ($before bytes):"
            printf '%s\n' "$why" | grep -m1 -E 'Error|error' | sed 's/^/[build-wasm]   /' || true
        fi
    else
        step "WARNING: $wasm_opt_version failed; keeping the wasm unoptimized:"
        sed 's/^/[build-wasm]   /' "$orig.opt.log" | head -n 5
    fi
    rm -f "$orig.opt" "$orig.opt.log" "$orig.unopt"
fi

step "done: pkg/web, pkg/node"
