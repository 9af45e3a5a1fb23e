"""Shared fixtures: the repository's data, the native CLI (for equality with
the single-machine matcher), small linkage inputs made by the CLI."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli_path() -> Path:
    """The CLI: $GRAMLINK_CLI, else the newest of target/{debug,release}/gramlink,
    else a debug build of it."""
    if os.environ.get("GRAMLINK_CLI"):
        return Path(os.environ["GRAMLINK_CLI"])
    built = [p for p in (ROOT / "target/debug/gramlink", ROOT / "target/release/gramlink") if p.exists()]
    if built:
        return max(built, key=lambda p: p.stat().st_mtime)
    subprocess.run(["cargo", "build", "--bin", "gramlink"], cwd=ROOT, check=True)
    return ROOT / "target/debug/gramlink"


@pytest.fixture(scope="session")
def cli():
    path = cli_path()

    def run(*args, cwd=None, check=True):
        """Runs the CLI; with check=False a failing run is returned too (its code and stderr)."""
        r = subprocess.run([str(path), *map(str, args)], cwd=cwd, capture_output=True, text=True)
        assert r.returncode == 0 or not check, f"gramlink {' '.join(map(str, args))}: {r.stderr}"
        return r

    return run


@pytest.fixture(scope="session")
def cities(tmp_path_factory, cli):
    """The first 600 CITIES as A, a copy with one edit each as B, the truth
    (gramlink lab corrupt, seed 3)."""
    d = tmp_path_factory.mktemp("cities")
    lines = (ROOT / "data/cities.txt").read_text(encoding="utf-8").splitlines()[:600]
    (d / "data.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("lab", "corrupt", "--data", d / "data.txt", "--ed", "1", "--seed", "3",
        "--out-a", d / "a.csv", "--out-b", d / "b.csv", "--truth", d / "truth.csv")
    return d


@pytest.fixture(scope="session")
def spark():
    """One local[2] Spark session for every Spark test (a session starts a JVM: seconds)."""
    from gramlink import spark as gspark

    s = gspark.session("local[2]", spark_driver_memory="1g")
    s.sparkContext.setLogLevel("OFF")
    yield s
    s.stop()
