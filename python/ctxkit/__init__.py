"""ctxkit: a versioned context store and context manager for LLM agents.

Agents hold handles, not content: every piece of context is a versioned
object in one store; code passes :class:`Ref` handles around and reads
content (whole, by byte range, by peek/search/find_relevant) only where it
is needed. Quick start::

    import ctxkit

    store = ctxkit.Store("/tmp/ctx")           # or Store(): $CTXKIT_HOME
    view = store.view(agent="me", session="s1")
    ref = view.set("notes/plan", "step 1: read the logs")
    view.get(ref)                              # b'step 1: read the logs'
    view.peek("notes/plan", 0, 1).text

Every call raises a subclass of :class:`Error` on failure and releases the
GIL while it does I/O; ``a``-prefixed twins (``aget``, ``aset``,
``afind_relevant``, ``arender``, ...) run the same call in a worker thread
for asyncio code.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ctxkit._errors import (
    AlreadyExistsError,
    CorruptionError,
    Error,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    IoError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnavailableError,
)
from ctxkit._ctxkit import (
    ChunkList,
    ChunkRange,
    CompactionInfo,
    ContextPointer,
    ContextVariable,
    DeferredSummary,
    EmbeddingsConfig,
    ExecutionLogEntry,
    ExternalizedContext,
    FindHit,
    FindResult,
    GarbageReport,
    IngestReport,
    LenResult,
    ListPage,
    LlmEndpoint,
    LoadedContext,
    Manifest,
    Note,
    NoteHeader,
    NoteHit,
    Notebook,
    NotesGcReport,
    ObjectMeta,
    PeekResult,
    Progress,
    PeekedItem,
    PoolEntry,
    Ref,
    RenderBreakdown,
    RenderConflict,
    RenderDiff,
    RenderDrop,
    RenderFigures,
    RenderResult,
    RootPrompt,
    ScanStats,
    SearchMatch,
    SearchResult,
    Selection,
    Session,
    SessionPolicy,
    SessionSnapshot,
    SizeWarning,
    SpawnedAgent,
    Store,
    StoreStats,
    Summary,
    ToolOutputCapture,
    VariableLen,
    VariableMatch,
    VariableMember,
    VariablePeek,
    VariableSearch,
    VersionMeta,
    View,
    collect_result,
    count_tokens,
    decode,
    encode,
    load_manifest,
    open_child_view,
    read_execution_log,
    resolve_context_ref,
    set_result,
    spawn,
)

from ctxkit import _arguments, _ctxkit, _results

# A call with arguments of the wrong type: a one-line TypeError naming the
# parameter, not pybind11's list of overloads.
_arguments.wrap_module(_ctxkit, globals())

# Results print their fields and convert to plain dicts (to_dict()).
_results.add_result_methods(globals())

from ctxkit import repl, rlm  # noqa: E402 (they use the wrapped calls)

__version__ = "0.1.0"

# The calls that get an asyncio twin named "a" + name.
_ASYNC_VIEW_CALLS = (
    "set", "set_file", "set_many", "append", "get", "resolve", "read_range", "stat",
    "list", "versions", "count_tokens", "peek", "search", "len", "chunk",
    "summarize", "find_relevant",
)
_ASYNC_SESSION_CALLS = ("ingest", "render", "replay", "snapshot")


def _async_twin(name: str) -> Callable[..., Any]:
    async def twin(self: Any, *args: Any, **kwargs: Any) -> Any:
        call = getattr(self, name)
        return await asyncio.to_thread(call, *args, **kwargs)

    twin.__name__ = "a" + name
    twin.__qualname__ = "a" + name
    twin.__doc__ = f"Awaitable twin of {name}: the same call in a worker thread."
    return twin


for _cls, _names in ((View, _ASYNC_VIEW_CALLS), (Session, _ASYNC_SESSION_CALLS)):
    for _name in _names:
        setattr(_cls, "a" + _name, _async_twin(_name))
del _cls, _names, _name

__all__ = [
    "AlreadyExistsError", "ChunkList", "ChunkRange", "CompactionInfo",
    "ContextPointer", "ContextVariable", "CorruptionError",
    "DeferredSummary", "EmbeddingsConfig", "Error", "ExecutionLogEntry",
    "ExternalizedContext",
    "FailedPreconditionError", "FindHit", "FindResult", "GarbageReport",
    "IngestReport", "InternalError", "InvalidArgumentError", "IoError",
    "LenResult", "ListPage", "LlmEndpoint", "LoadedContext", "Manifest",
    "NotFoundError", "Note", "NoteHeader", "NoteHit", "Notebook",
    "NotesGcReport", "ObjectMeta", "PeekResult", "PeekedItem",
    "PermissionDeniedError", "PoolEntry", "Progress", "Ref", "RenderBreakdown",
    "RenderConflict", "RenderDiff", "RenderDrop", "RenderFigures",
    "RenderResult",
    "ResourceExhaustedError", "RootPrompt", "ScanStats", "SearchMatch",
    "SearchResult", "Selection", "Session", "SessionPolicy", "SessionSnapshot",
    "SizeWarning", "SpawnedAgent", "Store", "StoreStats", "Summary",
    "ToolOutputCapture", "UnavailableError", "VariableLen", "VariableMatch",
    "VariableMember", "VariablePeek", "VariableSearch", "VersionMeta", "View",
    "collect_result",
    "count_tokens", "decode", "encode", "load_manifest", "open_child_view",
    "read_execution_log", "resolve_context_ref", "set_result", "spawn", "repl", "rlm",
]
