#!/usr/bin/env bash
# The Python package (python/): a virtual environment under target/pyenv with
# maturin, pytest, pandas, pyarrow and pyspark from PyPI, the package built from
# source (one release abi3 wheel), then its tests (pytest), the Spark job's in
# local mode included. Java 17+ for pyspark: Debian's openjdk-17-jre-headless
# when missing (scripts/setup.sh installs it too).
#
#   bash scripts/python.sh            # set up, build, test
#   SETUP_ONLY=1 bash scripts/python.sh   # set up and build only
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '[python] %s\n' "$*"; }
die() { printf '[python] error: %s\n' "$*" >&2; exit 1; }
. scripts/apt.sh

command -v python3 >/dev/null 2>&1 || die "python3 is not installed"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "python3 is older than 3.9"

# --- Java for pyspark ------------------------------------------------------------------
if [ "$(java_major 2>/dev/null || echo 0)" -ge 17 ] 2>/dev/null; then
    step "java $(java_major): present"
else
    step "java 17+: installing Debian's openjdk-17-jre-headless"
    apt_install openjdk-17-jre-headless
    [ "$(java_major)" -ge 17 ] || die "java 17+ still missing after installing openjdk-17-jre-headless"
fi

# --- the virtual environment -----------------------------------------------------------
venv="$root/target/pyenv"
py="$venv/bin/python"
if [ ! -x "$py" ]; then
    step "venv: creating $venv"
    python3 -m venv "$venv"
fi
packages=(maturin pytest pandas pyarrow pyspark)
if "$py" -c 'import maturin, pytest, pandas, pyarrow, pyspark' 2>/dev/null; then
    step "venv: ${packages[*]} present"
else
    step "venv: pip install ${packages[*]}"
    "$py" -m pip install -q --disable-pip-version-check "${packages[@]}"
fi

# --- build the wheel from source and install it -----------------------------------------
export CARGO_TARGET_DIR="$root/target/python"
step "maturin build --release (python/)"
rm -rf "$CARGO_TARGET_DIR/wheels"
(cd python && PYO3_PYTHON="$py" "$venv/bin/maturin" build --release --interpreter "$py" --quiet)
wheel="$(ls "$CARGO_TARGET_DIR"/wheels/gramlink-*.whl | head -n1)"
[ -n "$wheel" ] || die "no wheel was built"
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"
step "installed $(basename "$wheel")"

[ -z "${SETUP_ONLY:-}" ] || exit 0

# --- tests ---------------------------------------------------------------------------
# the CLI for the equality tests: the one `cargo test` built (debug), else a debug build
if [ -z "${GRAMLINK_CLI:-}" ]; then
    [ -x target/debug/gramlink ] || env -u CARGO_TARGET_DIR cargo build --bin gramlink --quiet
    export GRAMLINK_CLI="$root/target/debug/gramlink"
fi
# the installed wheel, not python/gramlink (whose native module is not built there)
cd "$root/target" && "$py" -m pytest -q -p no:cacheprovider "$root/python/tests"
