"""Reading by handle: peek, search, len, chunk, summarize, find_relevant."""

from __future__ import annotations

import json

import pytest

import ctxkit

LINES = "\n".join(f"line {i}: value {i * i}" for i in range(100)) + "\n"


def test_peek_lines_and_items(view: ctxkit.View) -> None:
    view.set("doc", LINES)
    first = view.peek("doc", 0, 3)
    assert first.unit == "lines"
    assert first.text == "line 0: value 0\nline 1: value 1\nline 2: value 4\n"
    last = view.peek("doc", -2, None, count_total=True)
    assert last.text == "line 98: value 9604\nline 99: value 9801\n"
    assert last.total == 100
    big = LINES * 2000                       # ~3.8 MB
    view.set("big", big)
    window = view.peek("big", 0, 3)
    assert window.bytes_read < len(big) // 10  # only the window was read
    view.set("items", json.dumps([{"n": i} for i in range(10)]), type="json")
    items = view.peek("items", 2, 4)
    assert items.unit == "items" and [json.loads(p) for p in items.parts] == [{"n": 2}, {"n": 3}]
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.peek("doc", unit="paragraphs")


def test_search_literal_regex_and_context(view: ctxkit.View) -> None:
    view.set("doc", LINES)
    hits = view.search("line 9:", keys=["doc"])
    assert [m.line for m in hits.matches] == [10]
    regex = view.search(r"line 9\d:", regex=True, max_results=3)
    assert [m.line for m in regex.matches] == [91, 92, 93] and regex.truncated
    ctx = view.search("line 50:", context_lines=1)
    assert ctx.matches[0].before == ["line 49: value 2401"]
    assert ctx.matches[0].after == ["line 51: value 2601"]
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.search("(unclosed", regex=True)


def test_len_and_chunk(view: ctxkit.View) -> None:
    ref = view.set("doc", LINES)
    info = view.len("doc", count=True)
    assert info.bytes == len(LINES) and info.lines == 100
    chunks = view.chunk(ref, 50)
    assert chunks.chunks and all(c.tokens <= 50 for c in chunks.chunks)
    assert chunks.chunks[-1].byte_end == len(LINES)
    assert sum(c.tokens for c in chunks.chunks) == chunks.total_tokens


def test_summarize_structural(view: ctxkit.View) -> None:
    view.set("doc", LINES)
    summary = view.summarize("doc", max_tokens=60, summarizer="structural")
    assert 0 < summary.tokens <= 60 and summary.summarizer.startswith("structural")
    assert ctxkit.count_tokens(summary.text) == summary.tokens
    again = view.summarize("doc", max_tokens=60, summarizer="structural")
    assert again.cached and again.text == summary.text
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.summarize("doc", summarizer="oracle")


def test_summarize_llm_without_endpoint_falls_back(view: ctxkit.View) -> None:
    view.set("doc", LINES)
    # Nothing listens on port 9: the call fails fast and falls back.
    endpoint = ctxkit.LlmEndpoint("http://127.0.0.1:9/v1", "m", api_key="secret",
                                  connect_timeout_ms=500, timeout_ms=1000)
    assert "secret" not in repr(endpoint)
    summary = view.summarize("doc", summarizer="llm", llm=endpoint)
    assert summary.summarizer.startswith("structural") and summary.notes


def test_find_relevant(view: ctxkit.View) -> None:
    view.set("facts/a", "The deploy key rotates every ninety days.\n" * 3)
    view.set("facts/b", "Lunch is served at noon in the atrium.\n" * 3)
    found = view.find_relevant("when does the deploy key rotate", top_k=2)
    assert found.hits and found.hits[0].key == "facts/a"
    assert found.method == "bm25"
    hit = found.hits[0]
    assert view.read_range(hit.ref, hit.byte_offset, hit.byte_length).startswith(b"The deploy")
    only_b = view.find_relevant("noon", "facts/b")
    assert {h.key for h in only_b.hits} == {"facts/b"}
    # "midday" is in neither value: WordNet relates it to "noon".
    assert [h.key for h in view.find_relevant("midday").hits] == ["facts/b"]
    assert not view.find_relevant("midday", widen=False).hits
    with pytest.raises(TypeError):
        view.find_relevant("midday", widen="no")  # type: ignore[arg-type]
