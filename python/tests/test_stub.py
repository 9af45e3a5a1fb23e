"""The type stub (gramlink/_native.pyi) names what the native module has: every
function and class it declares exists at run time, and every public function
and class of the module is declared (the stub once listed two functions the
module no longer had); and each function, method and constructor it declares
takes the parameters the native one takes, read from the signatures pyo3
generates (the stub once lacked a keyword of RecordOwner's constructor)."""

import ast
import inspect
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


def _parameters(args):
    """A stub function's parameters as (name, kind): positional, keyword-only,
    *args, **kwargs; `self` and `cls` left out."""
    out = [(a.arg, "positional") for a in args.posonlyargs + args.args if a.arg not in ("self", "cls")]
    out += [("*", "varargs")] if args.vararg else []
    out += [(a.arg, "keyword") for a in args.kwonlyargs]
    out += [("**", "varkw")] if args.kwarg else []
    return out


def _runtime_parameters(obj):
    """The same for a native callable, from the signature pyo3 generates; None when
    it has none (the limited API before 3.10 gives classes none)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_POSITIONAL: "varargs",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_KEYWORD: "varkw",
    }
    names = {"varargs": "*", "varkw": "**"}
    out = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls", "$self", "$cls", "$type"):
            continue
        kind = kinds[p.kind]
        out.append((names.get(kind, p.name), kind))
    return out


def _typed_dicts():
    """The stub's TypedDicts: name -> their keys."""
    tree = ast.parse(STUB.read_text())
    return {
        node.name: [item.target.id for item in node.body if isinstance(item, ast.AnnAssign)]
        for node in tree.body
        if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "TypedDict" for b in node.bases)
    }


def _unpacked(args):
    """The TypedDict a stub's `**kwargs: Unpack[T]` names, or None."""
    a = args.kwarg.annotation if args.kwarg else None
    if isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) and a.value.id == "Unpack":
        return a.slice.id if isinstance(a.slice, ast.Name) else None
    return None


def _same(declared, runtime, unpack, typed):
    """Whether the stub's parameters describe the native ones. Two spellings of one
    signature count as the same: the stub's `**kw: Unpack[T]` for the keywords T
    lists, and the stub's named keywords for a native `**kwargs` (the stub then says
    which keys it reads)."""
    if declared == runtime:
        return True
    if unpack and ("**", "varkw") not in runtime:
        return declared[:-1] + [(k, "keyword") for k in typed.get(unpack, [])] == runtime
    if runtime and runtime[-1] == ("**", "varkw") and ("**", "varkw") not in declared:
        return [p for p in declared if p[1] != "keyword"] == runtime[:-1]
    return False


def _declared_callables():
    """(qualified name, stub arguments, native object) of every function, method and
    constructor the stub declares (properties left out: they take nothing)."""
    tree = ast.parse(STUB.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node.args, getattr(native, node.name)
        elif isinstance(node, ast.ClassDef) and hasattr(native, node.name):
            cls = getattr(native, node.name)
            for item in node.body:
                if not isinstance(item, ast.FunctionDef) or item.name.startswith("__") and item.name != "__init__":
                    continue
                if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    continue
                target = cls if item.name == "__init__" else getattr(cls, item.name)
                yield f"{node.name}.{item.name}", item.args, target


def test_the_stub_declares_each_native_signature():
    # the stub once lacked RecordOwner's date_formats keyword, which the module takes
    checked, differ, typed = 0, [], _typed_dicts()
    for name, args, obj in _declared_callables():
        runtime = _runtime_parameters(obj)
        if runtime is None:
            continue
        checked += 1
        declared = _parameters(args)
        if not _same(declared, runtime, _unpacked(args), typed):
            differ.append(f"{name}: stub {declared}, module {runtime}")
    assert not differ, "\n".join(differ)
    assert checked >= 20, f"only {checked} native signatures could be read"
