# Sourced by the peer benchmarks (run.sh, records.sh, people.sh) from the
# repository's root: the peers' venv with the pinned versions in $VENV, and a
# built gramlink in $GRAMLINK (the caller's, or a fresh release build).
VENV=target/peers-venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
# pinned versions; pip is quiet when they are already there
"$VENV/bin/pip" install -q --disable-pip-version-check -r benches/peers/requirements.txt
if [ -z "${GRAMLINK:-}" ]; then
  cargo build --release --quiet
  GRAMLINK=target/release/gramlink
fi
