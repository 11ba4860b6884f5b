"""One-line TypeErrors for calls into the extension with wrong arguments.

pybind11 answers a call whose arguments match no signature with a TypeError
that lists every overload and repeats the arguments. :func:`wrap_module`
wraps each function, method and constructor of the extension so that such a
TypeError becomes one line naming the parameter (``View.peek(): start must
be int, not str``); every other call and error passes through unchanged.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

_PYBIND_MISMATCH = ("incompatible function arguments",
                    "incompatible constructor arguments")

# "name(a: int, *, b: str = 'x') -> T" (a pybind11 docstring's signature).
_SIGNATURE = re.compile(r"^\s*(?:\d+\.\s*)?(\w+)\((.*)\)(?:\s*->.*)?$")


def _split_top_level(text: str) -> List[str]:
    """Splits at commas outside brackets and quotes."""
    parts: List[str] = []
    depth = 0
    quote = ""
    current = ""
    for c in text:
        if quote:
            current += c
            if c == quote:
                quote = ""
            continue
        if c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += c
    if current.strip():
        parts.append(current.strip())
    return parts


class _Parameter:
    def __init__(self, name: str, annotation: str, keyword_only: bool,
                 has_default: bool) -> None:
        self.name = name
        self.annotation = annotation
        self.keyword_only = keyword_only
        self.has_default = has_default


def _signatures(doc: Optional[str]) -> List[List[_Parameter]]:
    """The parameters of each signature a pybind11 docstring lists."""
    out: List[List[_Parameter]] = []
    for line in (doc or "").splitlines():
        match = _SIGNATURE.match(line)
        if not match:
            continue
        params: List[_Parameter] = []
        keyword_only = False
        for part in _split_top_level(match.group(2)):
            if part == "*":
                keyword_only = True
                continue
            if part.startswith("*"):
                continue
            name, _, rest = part.partition(":")
            annotation, eq, _ = rest.partition("=")
            params.append(_Parameter(name.strip(), annotation.strip(),
                                     keyword_only, bool(eq)))
        out.append(params)
    return out


def _bare(annotation: str) -> str:
    return annotation.rsplit(".", 1)[-1]


def _mismatch(annotation: str, value: Any, module: Any) -> Optional[str]:
    """What `value` is instead of `annotation`, or None when it may fit (only
    types this can be sure of are checked)."""
    annotation = annotation.strip()
    optional = re.match(r"^Optional\[(.*)\]$", annotation)
    if optional:
        return None if value is None else _mismatch(optional.group(1), value,
                                                    module)
    got = type(value).__name__
    simple: Dict[str, Tuple[type, ...]] = {
        "str": (str,), "bytes": (bytes,), "bool": (bool,),
        "int": (int,), "float": (int, float),
    }
    if annotation in simple:
        if annotation == "int" and isinstance(value, bool):
            return None
        return None if isinstance(value, simple[annotation]) else got
    if re.match(r"^(List|Sequence)\[", annotation):
        ok = (isinstance(value, (list, tuple))
              or (hasattr(value, "__iter__")
                  and not isinstance(value, (str, bytes, dict))))
        return None if ok else got
    if annotation.startswith("Dict["):
        return None if isinstance(value, dict) else got
    cls = getattr(module, _bare(annotation), None)
    if (annotation.startswith(module.__name__ + ".") and isinstance(cls, type)
            and not isinstance(value, cls)):
        return got
    return None


def _explain(qualname: str, signatures: List[List[_Parameter]],
             args: Tuple[Any, ...], kwargs: Dict[str, Any],
             module: Any) -> str:
    """One line saying which argument is wrong, for the first signature
    whose parameters the arguments bind to."""
    problems: List[str] = []
    for params in signatures:
        positional = [p for p in params if not p.keyword_only]
        if len(args) > len(positional):
            problems.append(f"takes {len(positional)} positional arguments "
                            f"but {len(args)} were given")
            continue
        by_name = {p.name: p for p in params}
        unknown = [k for k in kwargs if k not in by_name]
        if unknown:
            problems.append(f"got an unexpected keyword argument "
                            f"'{unknown[0]}'")
            continue
        bound = dict(zip((p.name for p in positional), args))
        bound.update(kwargs)
        missing = [p.name for p in params
                   if p.name not in bound and not p.has_default]
        if missing:
            problems.append(f"missing argument '{missing[0]}'")
            continue
        for p in params:
            if p.name in bound:
                got = _mismatch(p.annotation, bound[p.name], module)
                if got is not None:
                    problems.append(f"{p.name} must be {_bare(p.annotation)},"
                                    f" not {got}")
                    break
    if not problems:
        return f"{qualname}(): the arguments match none of its signatures"
    return f"{qualname}(): {problems[0]}"


def _wrap(function: Callable[..., Any], qualname: str, module: Any,
          bound_self: bool) -> Callable[..., Any]:
    signatures = _signatures(function.__doc__)
    if bound_self:  # Drop `self` from each signature.
        signatures = [s[1:] for s in signatures]

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            text = str(error)
            if not any(m in text for m in _PYBIND_MISMATCH):
                raise
            rest = args[1:] if bound_self else args
            message = _explain(qualname, signatures, rest, kwargs, module)
        raise TypeError(message) from None

    return call


def wrap_module(module: Any, names: Dict[str, Any]) -> None:
    """Wraps every function of `module` (replacing it in `names`, the
    package's namespace, too) and every method, static method and
    constructor of its classes."""
    for name in dir(module):
        value = getattr(module, name)
        if isinstance(value, type):
            _wrap_class(value, module)
        elif callable(value) and not name.startswith("_"):
            wrapped = _wrap(value, name, module, bound_self=False)
            setattr(module, name, wrapped)
            if names.get(name) is value:
                names[name] = wrapped


def _wrap_class(cls: type, module: Any) -> None:
    for name, value in list(vars(cls).items()):
        if name.startswith("__") and name != "__init__":
            continue
        qualname = f"{cls.__name__}.{name}"
        if name == "__init__":
            qualname = cls.__name__
        if isinstance(value, staticmethod):
            function = value.__func__
            setattr(cls, name, staticmethod(
                _wrap(function, qualname, module, bound_self=False)))
        elif type(value).__name__ == "instancemethod":
            setattr(cls, name, _wrap(value.__func__, qualname, module,
                                     bound_self=True))
