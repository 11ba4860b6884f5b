"""The agent tools through Python: Session.tools in each format,
Session.call answering a model's tool call in its own format, a render
that carries the tools, and a scripted harness loop that answers questions
about earlier turns' outputs with those tools alone, at a small budget."""

from __future__ import annotations

import json
import random
import re

import pytest

import ctxkit


def _service_log(service: int, code: str) -> str:
    rng = random.Random(service)
    lines = [f"2026-11-28T10:{i // 60:02d}:{i % 60:02d}Z service-{service} "
             f"req={rng.getrandbits(32):08x} status=200 took={rng.randrange(900)}ms"
             for i in range(400)]
    lines[rng.randrange(50, 350)] = (f"2026-11-28T10:03:00Z service-{service} "
                                     f"deploy code {code} accepted")
    return "\n".join(lines) + "\n"


def _turn(service: int, code: str) -> list[dict]:
    call_id = f"call_{service}"
    return [
        {"role": "user", "content": f"Check the logs of service {service}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "read_logs",
                          "arguments": json.dumps({"service": service})}}]},
        {"role": "tool", "tool_call_id": call_id,
         "content": _service_log(service, code)},
        {"role": "assistant", "content": f"Service {service} looks healthy."},
    ]


def test_tools_in_every_format(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "s")
    names = {"ctxkit_activate", "ctxkit_compact", "ctxkit_expand",
             "ctxkit_find_relevant", "ctxkit_peek", "ctxkit_pin",
             "ctxkit_read", "ctxkit_search"}
    chat = session.tools()
    assert {t["function"]["name"] for t in chat} == names
    responses = session.tools("openai-responses")
    assert {t["name"] for t in responses} == names
    assert all(t["type"] == "function" for t in responses)
    anthropic = session.tools("anthropic")
    assert {t["name"] for t in anthropic} == names
    assert all("input_schema" in t for t in anthropic)
    with pytest.raises(ctxkit.InvalidArgumentError, match="openai-responses"):
        session.tools("gemini")


def test_call_answers_in_the_calls_format(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "s")
    session.ingest(_turn(1, "A1"))
    session.render(100_000)
    found = session.call({"type": "tool_use", "id": "toolu_1",
                          "name": "ctxkit_search",
                          "input": {"pattern": "deploy code"}})
    assert found["type"] == "tool_result" and found["tool_use_id"] == "toolu_1"
    assert "deploy code A1 accepted" in found["content"]
    missing = session.call(json.dumps(
        {"type": "function_call", "call_id": "fc", "name": "ctxkit_read",
         "arguments": json.dumps({"ref": "no/such/key"})}))
    assert missing["type"] == "function_call_output"
    assert missing["output"].startswith("error: not_found: ")
    with pytest.raises(ctxkit.InvalidArgumentError, match="not a ctxkit"):
        session.call({"id": "c", "type": "function",
                      "function": {"name": "get_weather", "arguments": "{}"}})


def test_render_carries_the_tools_and_the_harness_tools(
        store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "s")
    session.ingest(_turn(1, "A1"))
    own = {"type": "function",
           "function": {"name": "read_logs", "description": "Read logs.",
                        "parameters": {"type": "object", "properties": {}}}}
    result = session.render(100_000, tools=[own])
    tools = result.request["tools"]
    assert tools[:-1] == session.tools() and tools[-1] == own
    assert result.tokens <= 100_000
    assert session.replay(result.record).request_json == result.request_json
    bare = session.render(100_000)
    assert "tools" not in bare.request


def test_a_scripted_harness_answers_from_earlier_outputs(
        store: ctxkit.Store) -> None:
    """Ten turns of ~5k-token outputs at an 8k budget: earlier outputs are
    hidden behind refs; asked about each service, the scripted model finds
    the ref in what it sees and reads the answer with ctxkit_search."""
    session = ctxkit.Session.create(store, "harness")
    codes = {s: f"K{s * 7919 % 10007:05d}" for s in range(1, 11)}
    log: list[dict] = []
    for service in range(1, 11):
        log += _turn(service, codes[service])
        session.ingest(log)
        result = session.render(8_000, tools=True)
        assert result.tokens <= 8_000
        assert [t["function"]["name"] for t in result.request["tools"]] == \
            [t["function"]["name"] for t in session.tools()]
    seen = result.request["messages"]
    tokens_read = 0

    def call(name: str, **args: object) -> str:
        nonlocal tokens_read
        answer = session.call({"id": "q", "type": "function",
                               "function": {"name": name,
                                            "arguments": json.dumps(args)}})
        assert answer["tool_call_id"] == "q"
        tokens_read += ctxkit.count_tokens(answer["content"])
        return answer["content"]

    # What the compactions replaced, read back once, as a model would.
    expanded = ""
    for m in seen:
        if m["role"] == "system" and m["content"].startswith("[compacted"):
            ref = re.search(r"(ck:\S+ctxkit\.session/compaction/\S+)",
                            m["content"]).group(1)
            expanded += call("ctxkit_expand", compaction=ref)
    for service, code in codes.items():
        # The tool message answering call_<service> names its output's ref:
        # in the chat (whole, an excerpt or a placeholder), else in the
        # messages a compaction replaced.
        message = next((m for m in seen
                        if m.get("tool_call_id") == f"call_{service}"), None)
        if message is not None:
            ref = re.search(r"ck:[^\s\]\"]+", message["content"]).group(0)
        else:
            line = next(json.loads(x) for x in expanded.splitlines()
                        if f'"call_id":"call_{service}"' in x)
            ref = line["ref"]
        found = call("ctxkit_search", pattern="deploy code", ref=ref)
        match = re.search(r"deploy code (\S+) accepted", found)
        assert match and match.group(1) == code, (service, found)
    # Ten answers out of ~120k tokens of output, for a few thousand read.
    print(f"tokens read: {tokens_read}")
    assert tokens_read < 8_000, tokens_read


def test_request_compaction_folds_older_turns(store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "s")
    log = _turn(1, "A1") + _turn(2, "A2") + _turn(3, "A3")
    session.ingest(log)
    session.render(100_000)
    done = session.call({"id": "c", "type": "function",
                         "function": {"name": "ctxkit_compact",
                                      "arguments": json.dumps(
                                          {"instructions": "keep deploy codes"})}})
    assert "next turn" in done["content"]
    result = session.render(100_000)
    assert result.compacted.ref and result.compacted.end_message == 4
    with pytest.raises(ctxkit.InvalidArgumentError):
        session.request_compaction("x" * 2001)


def test_a_responses_loop_ingests_items_and_calls_tools(
        store: ctxkit.Store) -> None:
    """The OpenAI Responses shape end to end: items in, {"input", "tools"}
    out, a function_call answered with a function_call_output item."""
    session = ctxkit.Session.create(store, "responses")
    items = [{"role": "user", "content": "Which deploy code did service 4 get?"},
             {"type": "reasoning", "id": "rs_1", "summary": []},
             {"type": "function_call", "call_id": "call_4", "name": "read_logs",
              "arguments": json.dumps({"service": 4})},
             {"type": "function_call_output", "call_id": "call_4",
              "output": _service_log(4, "Z00004")}]
    session.ingest(items, format="openai-responses")
    result = session.render(4_000, format="openai-responses", tools=True)
    request = result.request
    assert set(request) == {"input", "tools"}
    assert request["input"][1] == items[1]          # kept verbatim
    assert {t["name"] for t in request["tools"]} >= {"ctxkit_read"}
    output = request["input"][-1]
    assert output["type"] == "function_call_output"
    ref = re.search(r"ck:[^\s\]\"]+", output["output"]).group(0)
    call = {"type": "function_call", "call_id": "fc_9", "name": "ctxkit_search",
            "arguments": json.dumps({"pattern": "deploy code", "ref": ref})}
    answer = session.call(call)
    assert answer["type"] == "function_call_output"
    assert "deploy code Z00004 accepted" in answer["output"]
    session.ingest([call, answer], format="openai-responses", append=True)
    again = session.render(4_000, format="openai-responses", tools=True)
    assert again.request["input"][-1]["call_id"] == "fc_9"
    assert session.replay(again.record).request_json == again.request_json


def test_results_print_their_fields_and_convert_to_dicts(
        store: ctxkit.Store) -> None:
    session = ctxkit.Session.create(store, "s")
    session.ingest(_turn(1, "A1"))
    result = session.render(100_000)
    text = repr(result)
    assert text.startswith("RenderResult(format='openai', ")
    assert f"tokens={result.tokens}" in text and len(text) < 400
    plain = result.to_dict()
    assert plain["tokens"] == result.tokens
    assert plain["breakdown"]["total"] == result.tokens
    assert plain["request"] == result.request
    json.dumps(plain)                      # plain values only
    snapshot = session.snapshot().to_dict()
    assert snapshot["entries"][0]["ref"].startswith("ck:")
    assert json.loads(json.dumps(snapshot))["id"] == "s"
    view = store.view()
    ref = view.set("k", "one\ntwo\n")
    peek = view.peek(ref, 0, 1)
    assert peek.to_dict()["ref"] == str(ref)
    assert repr(peek).startswith("PeekResult(")
