"""The README's Python example runs as written (as tests/js/readme.test.mjs
runs the JavaScript one)."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_a_python_example():
    assert len(blocks()) >= 1


def test_the_readme_example_runs_and_links_the_same_people(tmp_path):
    for i, code in enumerate(blocks()):
        f = tmp_path / f"readme_{i}.py"
        f.write_text(code, encoding="utf-8")
        r = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        if i == 0:
            first = r.stdout.splitlines()[0]
            # the ranked rule links JOHNSON-Jonson and BROWN-Browne
            assert first.startswith("ranked ") and "2-8" in first and "4-9" in first, r.stdout
