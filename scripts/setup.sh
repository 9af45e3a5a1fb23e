#!/usr/bin/env bash
# Installs what building and testing gramlink needs on a Debian machine that already
# has rustup, Node and npm. Idempotent: each step checks first and skips what is there.
#
#   - the wasm32-unknown-unknown Rust target
#   - wasm-bindgen-cli (wasm-bindgen, wasm-bindgen-test-runner) at exactly the version
#     pinned in Cargo.toml, built from source (no prebuilt download)
#   - Debian's chromium, chromium-driver and binaryen (wasm-opt)
#   - the root package.json's npm dependencies
#   - for the Python package (scripts/python.sh): python3 with venv, and Java 17+
#     for pyspark (Debian's python3-venv and openjdk-17-jre-headless when missing)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }
. scripts/apt.sh

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

for tool in rustup cargo node npm; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (this script expects rustup, Node and npm)"
done

# --- Rust target ---------------------------------------------------------------------
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "rust target wasm32-unknown-unknown: present"
else
    step "rust target wasm32-unknown-unknown: installing"
    rustup target add wasm32-unknown-unknown >/dev/null
fi

if rustup component list --installed | grep -q '^rustfmt'; then
    step "rustfmt: present"
else
    step "rustfmt: installing (scripts/test.sh checks the format)"
    rustup component add rustfmt >/dev/null
fi

# --- wasm-bindgen-cli at the pinned version ------------------------------------------
# Cargo.toml pins the library as `wasm-bindgen = "=X.Y.Z"` (or `{ version = "=X.Y.Z", ... }`);
# the CLI must be the same version or the generated glue does not match the wasm.
wb_version="$(grep -E '^[[:space:]]*wasm-bindgen[[:space:]]*=' Cargo.toml \
    | grep -oE '"=[0-9]+\.[0-9]+\.[0-9]+"' | head -n1 | tr -d '"=' || true)"
[ -n "$wb_version" ] || die "could not read the pinned wasm-bindgen version (wasm-bindgen = \"=X.Y.Z\") from Cargo.toml"

have_wb=""
if command -v wasm-bindgen >/dev/null 2>&1 && command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
    have_wb="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')"
fi
if [ "$have_wb" = "$wb_version" ]; then
    step "wasm-bindgen-cli $wb_version: present"
else
    step "wasm-bindgen-cli $wb_version: building from source (found '${have_wb:-none}'; takes ~5 min on 2 cores)"
    # Without --locked: the registry mirror lacks some of the CLI's pinned transitive versions.
    cargo install wasm-bindgen-cli --version "$wb_version" --quiet
    got="$(wasm-bindgen --version | awk '{print $2}')"
    [ "$got" = "$wb_version" ] || die "installed wasm-bindgen reports '$got', expected $wb_version"
fi

# --- Debian packages -----------------------------------------------------------------
missing=()
for pkg in chromium chromium-driver binaryen; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -eq 0 ]; then
    step "apt packages chromium chromium-driver binaryen: present"
else
    step "apt packages: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi
[ -x /usr/bin/chromedriver ] || die "/usr/bin/chromedriver is missing after installing chromium-driver"

# --- Python and Java for the Python package and its Spark job (scripts/python.sh) ------
py_missing=()
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || py_missing+=(python3-venv)
java="$(java_major)"
[ "${java:-0}" -ge 17 ] 2>/dev/null || py_missing+=(openjdk-17-jre-headless)
if [ "${#py_missing[@]}" -eq 0 ]; then
    step "python3 venv, java ${java}: present"
else
    step "apt packages: installing ${py_missing[*]}"
    apt_install "${py_missing[@]}"
fi

# --- npm -----------------------------------------------------------------------------
# node_modules is stale when package.json or package-lock.json is newer than npm's own
# record of the last install (node_modules/.package-lock.json).
if [ -f package.json ]; then
    if [ -f package-lock.json ]; then
        has_deps="$(node -e '
            const lock = JSON.parse(require("fs").readFileSync("package-lock.json", "utf8"));
            console.log(Object.keys(lock.packages || {}).some((k) => k !== "") ? "yes" : "no");')"
        stamp=node_modules/.package-lock.json
        if [ "$has_deps" = "no" ]; then
            step "npm: no dependencies to install"
        elif [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ "$stamp" -nt package.json ]; then
            step "npm: node_modules up to date"
        else
            step "npm: npm ci"
            npm ci --no-audit --no-fund --loglevel=error
        fi
    else
        step "npm: npm install (no package-lock.json)"
        npm install --no-audit --no-fund --loglevel=error
    fi
fi

step "done"
