"""progress= callbacks of the long calls: find_relevant, collect_garbage and
Session.ingest report ctxkit.Progress as they go (ctxkit/progress.h)."""

from __future__ import annotations

import asyncio
from typing import List

import pytest

import ctxkit


@pytest.fixture(autouse=True)
def every_step(monkeypatch: pytest.MonkeyPatch) -> None:
    # A report after every step, so the tests do not depend on timing.
    monkeypatch.setenv("CTXKIT_PROGRESS_INTERVAL_MS", "0")


def fill(view: ctxkit.View, n: int) -> None:
    view.set_many([(f"doc/{i}", f"the token refresh path {i}")
                   for i in range(n)])


def test_find_relevant_reports_indexing(view: ctxkit.View) -> None:
    fill(view, 25)
    seen: List[ctxkit.Progress] = []
    found = view.find_relevant("token refresh", progress=seen.append)
    assert found.hits
    assert [p.done for p in seen[:-1]] == list(range(1, 26))
    assert all(p.task == "indexing" and p.unit == "changes" for p in seen)
    last = seen[-1]
    assert last.finished and last.done == 25 and last.total == 25
    assert last.elapsed_seconds >= 0
    assert "Progress(task='indexing', done=25" in repr(last)
    # Caught up: the next call has nothing to report.
    seen.clear()
    view.find_relevant("token refresh", progress=seen.append)
    assert seen == []


def test_collect_garbage_and_ingest_report(store: ctxkit.Store,
                                           view: ctxkit.View) -> None:
    fill(view, 4)
    seen: List[ctxkit.Progress] = []
    store.collect_garbage(apply=True, progress=seen.append)
    assert seen and seen[-1].task == "collecting" and seen[-1].finished
    assert seen[-1].done == 4 and seen[-1].unit == "versions"

    session = ctxkit.Session.create(store, "p1")
    seen.clear()
    log = [{"role": "user", "content": "hi"}] + [
        {"role": "assistant", "content": f"step {i}"} for i in range(3)]
    session.ingest(log, progress=seen.append)
    assert [p.done for p in seen] == [1, 2, 3, 4, 4]
    assert {p.total for p in seen} == {4}
    assert seen[-1].finished and seen[-1].unit == "log items"


def test_a_raising_callback_raises_after_the_call(view: ctxkit.View) -> None:
    fill(view, 10)
    calls: List[int] = []

    def stop(p: ctxkit.Progress) -> None:
        calls.append(p.done)
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        view.find_relevant("token refresh", progress=stop)
    assert calls == [1]  # No report after the exception.
    # The work itself finished: the index is caught up.
    seen: List[ctxkit.Progress] = []
    assert view.find_relevant("token refresh", progress=seen.append).hits
    assert seen == []


def test_async_twin_reports_too(view: ctxkit.View) -> None:
    fill(view, 5)
    seen: List[ctxkit.Progress] = []
    found = asyncio.run(view.afind_relevant("token refresh",
                                            progress=seen.append))
    assert found.hits and seen[-1].finished and seen[-1].done == 5


def test_progress_must_be_callable(view: ctxkit.View) -> None:
    with pytest.raises(TypeError):
        view.find_relevant("token", progress=42)  # type: ignore[arg-type]
