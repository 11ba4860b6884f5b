"""The asyncio twins, and that calls release the GIL."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import ctxkit
from conftest import openai_log


def test_async_twins(view: ctxkit.View, store: ctxkit.Store) -> None:
    async def main() -> None:
        refs = await asyncio.gather(*(view.aset(f"k{i}", f"v{i}") for i in range(8)))
        assert [r.key for r in refs] == [f"k{i}" for i in range(8)]
        values = await asyncio.gather(*(view.aget(f"k{i}") for i in range(8)))
        assert values == [f"v{i}".encode() for i in range(8)]
        found = await view.afind_relevant("v3", top_k=1)
        assert found.hits[0].key == "k3"
        session = ctxkit.Session.create(store, "async")
        await session.aingest(openai_log(1))
        rendered = await session.arender(10_000)
        assert rendered.tokens > 0

    asyncio.run(main())


def test_async_errors_are_ctxkit_errors(view: ctxkit.View) -> None:
    async def main() -> None:
        try:
            await view.aget("missing")
        except ctxkit.NotFoundError as e:
            assert e.code == "not_found"
        else:
            raise AssertionError("aget of a missing key did not raise")

    asyncio.run(main())


def _spins_per_second() -> float:
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.05:
        n += 1
    return n / (time.perf_counter() - start)


def test_long_calls_release_the_gil() -> None:
    # 8 MiB of random letters: one piece without spaces, the tokenizer's
    # slowest text per byte (prose repeats and is counted too fast to tell).
    letters = bytes(ord("a") + b % 26 for b in range(256))
    text = os.urandom(8 << 20).translate(letters).decode()
    rate = _spins_per_second()
    done = threading.Event()
    elapsed: list[float] = []

    def work() -> None:
        start = time.perf_counter()
        ctxkit.count_tokens(text)
        elapsed.append(time.perf_counter() - start)
        done.set()

    worker = threading.Thread(target=work)
    spins = 0
    worker.start()
    while not done.is_set():
        spins += 1
        time.perf_counter()
    worker.join()
    # With the GIL held for the whole count, this thread would spin only
    # for a switch interval or two (~10 ms) of a call lasting far longer.
    assert elapsed[0] > 0.1, "the call was too short to tell"
    assert spins > 0.1 * rate * elapsed[0]


def test_every_documented_twin_exists(view: ctxkit.View, tmp_path) -> None:
    """docs/python.md lists the twins; each exists and awaits its call."""
    for name in ("aset", "aset_file", "aset_many", "aappend", "aget",
                 "aresolve", "aread_range", "astat", "alist", "aversions",
                 "acount_tokens", "apeek", "asearch", "alen", "achunk",
                 "asummarize", "afind_relevant"):
        assert asyncio.iscoroutinefunction(getattr(ctxkit.View, name)), name
    for name in ("aingest", "arender", "areplay", "asnapshot"):
        assert asyncio.iscoroutinefunction(getattr(ctxkit.Session, name)), name
    path = tmp_path / "file.txt"
    path.write_bytes(b"from a file")

    async def main() -> bytes:
        await view.aset_file("f", path)
        return await view.aget("f")

    assert asyncio.run(main()) == b"from a file"
