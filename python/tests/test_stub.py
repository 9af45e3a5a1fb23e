"""The type stub (gramlink/_native.pyi) names what the native module has: every
function and class it declares exists at run time, and every public function
and class of the module is declared (the stub once listed two functions the
module no longer had)."""

import ast
from pathlib import Path

import gramlink._native as native

STUB = Path(__file__).resolve().parents[1] / "gramlink" / "_native.pyi"


def _declared():
    tree = ast.parse(STUB.read_text())
    functions, classes = set(), set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            # typed dicts describe the keyword options: types only, no run-time class
            bases = {b.id if isinstance(b, ast.Name) else "" for b in node.bases}
            keywords = {k.arg for k in node.keywords}
            if "TypedDict" not in bases and "total" not in keywords:
                classes.add(node.name)
    return functions, classes


def test_the_stub_declares_exactly_the_native_module():
    functions, classes = _declared()
    public = {n for n in dir(native) if not n.startswith("_")}
    kinds = {n: isinstance(getattr(native, n), type) for n in public if callable(getattr(native, n))}
    runtime_classes = {n for n, is_class in kinds.items() if is_class and not issubclass(getattr(native, n), BaseException)}
    runtime_functions = {n for n, is_class in kinds.items() if not is_class}
    assert functions - runtime_functions == set(), "declared, not in the module"
    assert runtime_functions - functions == set(), "in the module, not declared"
    assert classes - runtime_classes == set(), "classes declared, not in the module"
    assert runtime_classes - classes == set(), "classes in the module, not declared"
