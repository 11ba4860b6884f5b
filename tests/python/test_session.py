"""Sessions through Python: ingest message lists, render, append, replay,
compaction and expansion."""

from __future__ import annotations

import json
import re

import pytest

import ctxkit
from conftest import openai_log, tool_turn
from fake_llm import FakeLlm


def test_ingest_render_and_request(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "chat1")
    report = session.ingest(openai_log(3))
    assert report.messages_added == 12   # the system prompt is not chat
    result = session.render(100_000)
    request = result.request
    assert request == json.loads(result.request_json)
    assert request["messages"][0]["role"] == "system"
    assert result.tokens <= 100_000 and result.breakdown.total == result.tokens
    assert result.record == 1
    snap = session.snapshot()
    assert snap.chat_messages == 12 and snap.renders == 1
    assert ctxkit.Session.list(store) == ["chat1"]
    with pytest.raises(ctxkit.AlreadyExistsError):
        ctxkit.Session.create(store, "chat1")


def test_append_equals_whole_log(store: ctxkit.Store) -> None:
    whole = ctxkit.Session.create(store, "whole")
    whole.ingest(openai_log(4))
    appended = ctxkit.Session.create(store, "appended")
    appended.ingest(openai_log(2))
    appended.ingest(tool_turn(2) + tool_turn(3), append=True)
    # The same request but for the refs, which name each session's objects.
    assert _without_refs(appended.render(50_000).request_json) == \
        _without_refs(whole.render(50_000).request_json)
    with pytest.raises(ctxkit.InvalidArgumentError):
        appended.ingest([{"role": "system", "content": "again"}], append=True)


def _without_refs(text: str) -> str:
    return re.sub(r"ck:[A-Za-z0-9._~:=-]+", "REF", text)


def test_replay_is_byte_exact(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "replay")
    session.ingest(openai_log(2))
    first = session.render(20_000)
    session.ingest(tool_turn(2), append=True)
    session.render(20_000)
    assert session.replay(first.record).request_json == first.request_json
    diff = session.diff(1, 2)
    assert diff.to_tokens > diff.from_tokens


def test_fork_starts_from_a_recorded_render(store: ctxkit.Store) -> None:
    parent = ctxkit.Session.create(store, "parent")
    parent.ingest(openai_log(2))
    first = parent.render(20_000)
    parent.ingest(tool_turn(2), append=True)
    parent.render(20_000)
    child = parent.fork(first.record, "child")
    assert child.id == "child"
    assert child.render(20_000).request_json == first.request_json
    child.ingest(tool_turn(5), append=True)
    assert "thing 5" in child.render(20_000).request_json
    assert parent.snapshot().chat_messages == 12
    assert parent.replay(first.record).request_json == first.request_json
    with pytest.raises(ctxkit.AlreadyExistsError):
        parent.fork(1, "child")
    with pytest.raises(ctxkit.NotFoundError):
        parent.fork(9, "other")
    with pytest.raises(ctxkit.InvalidArgumentError):
        parent.fork(1, "bad id")


def test_render_history_gives_each_records_figures(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "history")
    session.ingest(openai_log(2))
    first = session.render(20_000)
    session.ingest(tool_turn(2), append=True)
    second = session.render(20_000)
    assert first.prefix_bytes is None
    assert first.bytes == len(first.request_json.encode())
    # The chat only grew: all of the first request but its closing "]}".
    assert second.prefix_bytes == first.bytes - 2
    history = session.render_history()
    assert [f.record for f in history] == [1, 2]
    assert [f.tokens for f in history] == [first.tokens, second.tokens]
    assert history[1].prefix_bytes == second.prefix_bytes
    assert history[0].format == "openai"
    assert history[1].breakdown.chat == second.breakdown.chat


def test_compaction_expands_to_the_exact_messages(store: ctxkit.Store) -> None:
    policy = ctxkit.SessionPolicy(min_collapse_tokens=100, keep_turns=1)
    session = ctxkit.Session.create(store, "long", policy)
    log = openai_log(30, lines=40)
    session.ingest(log)
    result = session.render(4_000)
    assert result.tokens <= 4_000 and result.compacted_messages > 0
    compaction = session.snapshot().compactions[0]
    messages = session.expand(compaction.ref)
    # Exactly the chat object's messages [first, end), as stored.
    chat = store.view(session="long").get("ctxkit.session/chat").decode()
    stored = [json.loads(line) for line in chat.splitlines()]
    assert messages == stored[compaction.first_message:compaction.end_message]
    assert messages[0]["text"] == log[1 + compaction.first_message]["content"]


def test_compaction_summary_from_an_endpoint(store: ctxkit.Store) -> None:
    fake = FakeLlm(lambda messages: "The user searched for things 0 to 9.")
    try:
        policy = ctxkit.SessionPolicy(min_collapse_tokens=100, keep_turns=1)
        session = ctxkit.Session.create(store, "llm", policy)
        session.ingest(openai_log(30, lines=40))
        endpoint = ctxkit.LlmEndpoint(fake.base_url, "fake", timeout_ms=5000)
        result = session.render(4_000, llm=endpoint)
        assert result.compacted_messages > 0
        assert "The user searched for things 0 to 9." in result.request_json
        assert len(fake.requests) == 1
        assert "user: " in fake.requests[0][1]["content"]
        # Settled: the next render asks nothing.
        session.render(4_000, llm=endpoint)
        assert len(fake.requests) == 1
    finally:
        fake.close()


def test_budget_below_minimum_names_it(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "tiny")
    session.ingest(openai_log(2))
    with pytest.raises(ctxkit.FailedPreconditionError, match="budget"):
        session.render(5)
    with pytest.raises(ctxkit.InvalidArgumentError):
        session.render(0)
    with pytest.raises(ctxkit.InvalidArgumentError):
        session.render(100, format="gemini")
    assert session.snapshot().renders == 0


def test_bad_messages_are_rejected_whole(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "bad")
    with pytest.raises(ctxkit.InvalidArgumentError):
        session.ingest("{not json")
    with pytest.raises(TypeError):
        session.ingest([{"role": "user", "content": object()}])
    assert session.snapshot().chat_messages == 0


def test_activate_and_pin(store: ctxkit.Store) -> None:
    view = store.view(session="pinning")
    view.set("spec", "The spec says: always validate input.")
    session = ctxkit.Session.create(store, "pinning")
    session.ingest(openai_log(1))
    session.track(["spec"])
    session.pin("spec")
    rendered = session.render(10_000)
    assert "always validate input" in rendered.request_json
    assert rendered.breakdown.pinned > 0
    session.unpin("spec")
    with pytest.raises(ctxkit.NotFoundError):
        session.activate("no-such-object")


def test_anthropic_messages_as_python_objects(store: ctxkit.Store) -> None:
    log = {"system": "You are terse.", "messages": [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Listing."},
            {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt\nb.txt"}]},
        {"role": "assistant", "content": "Two files."}]}
    session = ctxkit.Session.create(store, "claude")
    report = session.ingest(log, format="anthropic")
    assert report.messages_added == 4 and report.toolcalls_recorded == 1
    request = session.render(10_000, format="anthropic").request
    assert request["system"][0]["text"] == "You are terse."
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user", "assistant"]
    assert "a.txt" in json.dumps(request)
    with pytest.raises(ctxkit.FailedPreconditionError):
        session.ingest([{"role": "user", "content": "hi"}], format="openai", append=True)


def test_gc_keeps_what_a_session_pins(store: ctxkit.Store) -> None:
    """Python's gc keeps what a session names, as the CLI's does: the
    store itself holds pinned, active and rendered versions."""
    v = store.view()
    v.set("doc", "version one\n" * 50)
    s = ctxkit.Session.create(store, "s1")
    s.activate("doc", 1)
    s.pin("doc", 1)
    first = s.render(20000)
    v.set("doc", "version two\n" * 50)
    report = store.collect_garbage(retention_seconds=0, apply=True)
    assert report.kept_by_ref >= 1
    assert v.get("doc", version=1) == b"version one\n" * 50
    s.render(20000)
    assert s.replay(1).request_json == first.request_json
