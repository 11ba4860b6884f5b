"""``repr`` and ``to_dict()`` for the extension's result types.

Each result type (RenderResult, SessionSnapshot, PeekResult, ...) is a
read-only record of properties. :func:`add_result_methods` gives each one
``to_dict()`` -- its properties as plain Python values (nested results as
dicts, refs as their wire text, lists as lists), ready for ``json.dumps``
unless a field holds bytes -- and, when it has none of its own, a short
``repr`` naming its scalar fields (``RenderResult(format='openai',
tokens=812, ...)``).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List

# Result types: records the extension returns (not handles such as Store,
# View, Session, Notebook).
RESULT_TYPES = (
    "ChunkList", "ChunkRange", "CompactionInfo", "ContextPointer",
    "ExecutionLogEntry",
    "FindHit", "FindResult", "GarbageReport", "IngestReport", "LenResult",
    "ListPage", "LoadedContext", "Manifest", "NoteHeader", "NoteHit",
    "NotesGcReport", "ObjectMeta", "PeekResult", "PeekedItem", "PoolEntry",
    "RenderBreakdown", "RenderConflict", "RenderDiff", "RenderDrop",
    "RenderFigures", "RenderResult", "ScanStats", "SearchMatch",
    "SearchResult", "Selection", "SessionPolicy", "SessionSnapshot",
    "SizeWarning", "StoreStats", "Summary", "VariableLen", "VariableMatch",
    "VariablePeek", "VariableSearch", "VersionMeta",
)

_REPR_FIELDS = 8     # Scalar fields a repr shows at most.
_REPR_TEXT = 40      # Characters of a string field a repr shows.


def _fields(cls: type) -> List[str]:
    names: List[str] = []
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if isinstance(value, property) and not name.startswith("_") \
                    and name not in names:
                names.append(name)
    return names


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    return str(value)  # Ref and the other values with a text form.


def _to_dict(self: Any) -> Dict[str, Any]:
    """to_dict(self) -> Dict[str, Any]

    The result's fields as plain values: nested results as dicts, refs as
    their wire text."""
    return {name: _plain(getattr(self, name)) for name in _fields(type(self))}


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) > _REPR_TEXT:
        return repr(value[:_REPR_TEXT] + "...")
    return repr(value)


def _repr(self: Any) -> str:
    shown = []
    for name in _fields(type(self)):
        value = getattr(self, name)
        if isinstance(value, (str, int, float, bool)) or value is None:
            shown.append(f"{name}={_short(value)}")
        elif isinstance(value, (list, tuple)):
            count = len(value)
            shown.append(f"{name}=[{count} item{'' if count == 1 else 's'}]")
        if len(shown) == _REPR_FIELDS:
            shown.append("...")
            break
    return f"{type(self).__name__}({', '.join(shown)})"


def add_result_methods(namespace: Dict[str, Any],
                       names: Iterable[str] = RESULT_TYPES) -> None:
    """Gives each result type of `namespace` to_dict() and, unless it has
    its own, __repr__."""
    for name in names:
        cls = namespace[name]
        cls.to_dict = _to_dict
        if "__repr__" not in vars(cls):
            cls.__repr__ = _repr
