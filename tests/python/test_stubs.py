"""The type stubs (ctxkit/_ctxkit.pyi) match the built extension: the same
classes, functions, methods and properties, and every function's
parameters in the same order with the same keyword-only boundary (as the
signature pybind11 writes at the top of each docstring)."""

from __future__ import annotations

import ast
import inspect
import pathlib

import ctxkit
from ctxkit import _ctxkit

STUB = pathlib.Path(_ctxkit.__file__).with_name("_ctxkit.pyi")


def _stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if fn.args.vararg:
        names.append("*" + fn.args.vararg.arg)
    elif fn.args.kwonlyargs:
        names.append("*")
    names += [a.arg for a in fn.args.kwonlyargs]
    return [n for n in names if n != "self"]


def _runtime_params(obj: object) -> list[str]:
    first = (inspect.getdoc(obj) or "").splitlines()[0]
    inside = first[first.index("(") + 1:first.rindex(") ->")]
    pieces, depth, current = [], 0, ""
    for ch in inside:
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        if ch == "," and depth == 0:
            pieces.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        pieces.append(current.strip())
    names = [p.split(":")[0].split("=")[0].strip() for p in pieces]
    return [n for n in names if n != "self"]


def _stub_classes() -> dict[str, ast.ClassDef]:
    return {n.name: n for n in _stub_tree().body if isinstance(n, ast.ClassDef)}


def test_same_public_names() -> None:
    declared = {n.name for n in _stub_tree().body
                if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    runtime = {n for n in dir(_ctxkit) if not n.startswith("_")}
    assert declared == runtime


def test_same_public_members_per_class() -> None:
    for name, node in _stub_classes().items():
        declared = set()
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared.add(item.name)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                declared.add(item.target.id)
        runtime = {m for m in vars(getattr(_ctxkit, name)) if not m.startswith("_")}
        assert {m for m in declared if not m.startswith("_")} == runtime, name


def test_same_parameters() -> None:
    checked = 0
    for node in _stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            assert _params(node) == _runtime_params(getattr(_ctxkit, node.name)), node.name
            checked += 1
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(_ctxkit, node.name)
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name in ("__eq__", "__hash__"):
                continue
            if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                assert isinstance(vars(cls)[item.name], property), f"{node.name}.{item.name}"
                continue
            runtime = getattr(cls, item.name)
            assert _params(item) == _runtime_params(runtime), f"{node.name}.{item.name}"
            checked += 1
    assert checked > 50


def test_async_twins_exist_for_the_stubbed_ones() -> None:
    for cls in (ctxkit.View, ctxkit.Session):
        node = _stub_classes()[cls.__name__]
        for item in node.body:
            if isinstance(item, ast.AsyncFunctionDef):
                assert inspect.iscoroutinefunction(getattr(cls, item.name)), item.name
                assert hasattr(cls, item.name[1:]), item.name
