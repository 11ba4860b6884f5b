"""SPEC-25 in Python: the externalized context (the seed's test plan) and
the sandboxed REPL: steps, helpers, limits and hostile code against the
protocol (escapes from the sandbox itself: test_sandbox.py)."""

from __future__ import annotations

import json

import pytest

import ctxkit
from ctxkit.repl import Repl, SandboxLimits, truncate_output
from conftest import openai_log

SECRET = "the-launch-code-is-7431"
DEPLOY_LOG = "\n".join(f"{i:05d} deploy step {i} {'ERROR disk full' if i == 777 else 'ok'}"
                       for i in range(3000)) + "\n"


@pytest.fixture
def context(store: ctxkit.Store) -> tuple[ctxkit.View, ctxkit.ExternalizedContext]:
    session = ctxkit.Session.create(store, "run")
    session.ingest(openai_log(6))
    view = store.view(agent="root", session="run")
    view.set("notes/plan", f"Plan: check the deploy logs. {SECRET}")
    view.set("notes/owner", "Owner: the platform team")
    session.track(["notes/plan", "notes/owner"])
    ctx = ctxkit.ExternalizedContext.from_session(view, "run", "Why did the deploy fail?")
    ctx.add_variable(view, "deploy_log", view.set("logs/deploy", DEPLOY_LOG))
    return view, ctx


@pytest.fixture
def repl(context: tuple[ctxkit.View, ctxkit.ExternalizedContext]):
    view, ctx = context
    with Repl(view, ctx, limits=SandboxLimits(step_seconds=10)) as r:
        yield r


def run(repl: Repl, code: str) -> ctxkit.repl.StepResult:
    result = repl.step(code)
    assert result.error is None, result.error
    return result


# -- the seed's test plan (SPEC-25.01 - 25.04) -----------------------------

def test_externalize_session(context) -> None:
    _, ctx = context
    names = {v.name: v for v in ctx.variables}
    assert {"conversation", "tool_outputs", "working_memory", "deploy_log"} <= set(names)
    assert names["conversation"].shape == "list" and names["conversation"].item_count == 24
    assert names["tool_outputs"].item_count == 6
    assert names["working_memory"].shape == "dict"
    assert all(v.summary for v in ctx.variables)
    assert ctx.total_size_bytes == sum(v.size_bytes for v in ctx.variables)


def test_prompt_no_full_context(context) -> None:
    _, ctx = context
    prompt = ctx.root_prompt()
    assert SECRET not in prompt.text and "ERROR disk full" not in prompt.text
    for helper in ("peek(", "search(", "summarize(", "len(", "SUBMIT("):
        assert helper in prompt.text
    assert ctx.variable_summaries() in prompt.text
    assert prompt.tokens == ctxkit.count_tokens(prompt.text)


def test_peek_list(repl: Repl) -> None:
    out = run(repl, "print(json.dumps(peek(conversation, 0, 2)))\n"
                    "print(peek([1, 2, 3, 4], 1, 3))").output.splitlines()
    first_two = json.loads(out[0])
    assert [m["role"] for m in first_two] == ["user", "assistant"]
    assert out[1] == "[2, 3]"


def test_peek_dict(repl: Repl) -> None:
    out = run(repl, "print(json.dumps(peek(working_memory, 0, 2)))\n"
                    "print(peek({'a': 1, 'b': 2, 'c': 3}, 1, 3))").output.splitlines()
    memory = json.loads(out[0])
    assert any(SECRET in v for v in memory.values())
    assert out[1] == "{'b': 2, 'c': 3}"


def test_search_literal(repl: Repl) -> None:
    out = run(repl, "print(json.dumps(search(deploy_log, 'ERROR')))\n"
                    "print(search(['x', 'needle here', 'y'], 'needle'))").output.splitlines()
    assert json.loads(out[0]) == [{"index": 777, "preview": "00777 deploy step 777 ERROR disk full"}]
    assert out[1] == "[{'index': 1, 'preview': 'needle here'}]"


def test_search_says_how_many_matches_it_did_not_return(repl: Repl) -> None:
    out = run(repl, "hits = search(deploy_log, 'deploy step')\n"
                    "print(len(hits), hits.total, hits.more)\n"
                    "print(hits)\n"
                    "print(search([f'a{i}' for i in range(12)], 'a', max_results=3))\n"
                    "print(search(deploy_log, 'ERROR'))").output.splitlines()
    assert out[0] == "10 3000 False"
    assert out[1].endswith("}]  # 10 of 3,000 matches; "
                           "search(var, pattern, max_results=N) returns up to N")
    assert out[2].endswith("}]  # 3 of 12 matches; "
                           "search(var, pattern, max_results=N) returns up to N")
    assert out[3].endswith("disk full'}]")  # All of them: nothing to add.


def test_search_regex(repl: Repl) -> None:
    out = run(repl, "print(json.dumps(search(working_memory, r'launch-code-is-\\d+', regex=True)))\n"
                    "print(search({'k': 'v42'}, r'v\\d', regex=True))").output.splitlines()
    hits = json.loads(out[0])
    assert len(hits) == 1 and hits[0]["key"].endswith("notes/plan")
    assert out[1] == "[{'key': 'k', 'preview': 'v42'}]"


def test_size_warning(store: ctxkit.Store) -> None:
    view = store.view(agent="root")
    ctx = ctxkit.ExternalizedContext.empty("q")
    ctx.add_variable(view, "big", view.set("big", "x" * 200_000))
    warnings = ctx.check_size_limits()
    assert [(w.kind, w.variable) for w in warnings] == [("large_variable", "big")]
    assert warnings[0].size == 200_000


def test_chunking(store: ctxkit.Store) -> None:
    view = store.view(agent="root")
    ctx = ctxkit.ExternalizedContext.empty("q")
    ctx.add_variable(view, "huge", view.set("huge", "word " * 400_000))
    assert ctx.check_size_limits()[0].kind == "requires_chunking"
    ctx.auto_chunk(view)
    assert "chunk" in ctx.variables[0].summary


def test_comparison(context) -> None:
    _, ctx = context
    content_tokens = sum(v.tokens for v in ctx.variables)
    prompt_tokens = ctx.root_prompt().tokens
    assert prompt_tokens * 5 < content_tokens


# -- variables are proxies that read only what they need --------------------

def test_variables_behave_like_python_values(repl: Repl) -> None:
    out = run(repl, """
print(len(conversation), len(deploy_log), len(working_memory))
print(deploy_log[777:779], end='')
print(conversation[-1]['role'])
print(sum(1 for line in deploy_log if 'ERROR' in line))
print(sorted(working_memory.keys()) == sorted(k for k in working_memory))
print(deploy_log.ref.startswith('ck:'), bool(deploy_log.summary))
print(len(str(deploy_log)))
print(repr(deploy_log)[:20])
""").output.splitlines()
    assert out[0] == "24 3000 2"
    assert out[1:3] == ["00777 deploy step 777 ERROR disk full", "00778 deploy step 778 ok"]
    assert out[3] == "assistant"
    assert out[4:7] == ["1", "True", "True True"]
    assert int(out[7]) == len(DEPLOY_LOG)
    assert out[8].startswith("<Var deploy_log")


def test_state_persists_between_steps(repl: Repl) -> None:
    run(repl, "found = search(deploy_log, 'ERROR')")
    assert run(repl, "print(found[0]['index'])").output == "777\n"


def test_deferred_summarize_and_find_relevant(repl: Repl) -> None:
    step = run(repl, "s = summarize(deploy_log, max_tokens=50)\n"
                     "f = find_relevant(deploy_log, 'disk full error', top_k=1)\n"
                     "print(repr(s))")
    assert "pending" in step.output
    assert len(step.deferred) == 2            # the orchestrator resolved both
    out = run(repl, "print(type(s.result()).__name__, len(s.result()) > 0)\n"
                    "print(f.result()[0]['text'])\n"
                    "print(type(summarize('a plain string').result()).__name__)").output
    lines = out.splitlines()
    assert lines[0] == "str True"
    assert "00777 deploy step 777 ERROR disk full" in lines
    assert lines[-1] == "str"


def test_submit_ends_the_step(repl: Repl) -> None:
    step = repl.step("x = 1\nSUBMIT({'answer': 'disk full', 'line': 777})\nprint('not reached')")
    assert step.submitted == {"answer": "disk full", "line": 777}
    assert step.output == "" and step.error is None
    bad = repl.step("SUBMIT({'f': object()})")
    assert bad.submitted is None and "JSON-serializable" in bad.error
    swallowed = repl.step("try:\n    SUBMIT({'a': 1})\nexcept Exception:\n    print('caught')")
    assert swallowed.submitted == {"a": 1} and swallowed.output == ""


def test_errors_are_reported_not_raised(repl: Repl) -> None:
    step = repl.step("print('before')\n1 / 0")
    assert step.output == "before\n" and step.error.startswith("ZeroDivisionError")
    assert "(line 2)" in step.error
    helper = repl.step("peek(no_such_var)")
    assert helper.error.startswith("NameError")
    assert repl.step("print(len(deploy_log))").output == "3000\n"


def test_output_is_truncated_head_and_tail(repl: Repl) -> None:
    step = repl.step("print(str(deploy_log))")
    assert step.truncated and step.output_chars > 60_000
    assert len(step.output) < 8100
    assert step.output.startswith("00000 deploy step 0 ok")
    assert "characters truncated ...]" in step.output
    assert step.output.rstrip().endswith("02999 deploy step 2999 ok")
    assert truncate_output("abcdef", 4) == ("ab\n[... 2 characters truncated ...]\nef", True)


# -- the sandbox (escapes: test_sandbox.py) ----------------------------------

def _assert_usable(repl: Repl) -> None:
    assert repl.step("print(len(conversation))").output == "24\n"


def test_infinite_loop_times_out(context) -> None:
    view, ctx = context
    with Repl(view, ctx, limits=SandboxLimits(step_seconds=1.5)) as repl:
        run(repl, "kept = 1\nopen('kept.txt', 'w').close()")
        step = repl.step("while True:\n    pass")
        assert step.restarted and step.error.startswith("TimeoutError")
        assert "restarted" in step.error
        assert repl.step("print(kept)").error.startswith("NameError")   # as stated
        assert repl.step("open('kept.txt')").error.startswith("FileNotFoundError")
        _assert_usable(repl)


def test_protocol_abuse_restarts_the_sandbox(repl: Repl) -> None:
    step = repl.step("import os\nfor fd in range(3, 10):\n    try:\n"
                     "        os.write(fd, b'\\xff\\xff\\xff\\xffgarbage')\n"
                     "    except OSError:\n        pass\nwhile True: pass")
    assert step.error and step.restarted
    _assert_usable(repl)


# -- hostile code against the host's side of the protocol --------------------

def test_code_writing_to_the_protocol_cannot_hang_the_host(context) -> None:
    view, ctx = context
    with Repl(view, ctx, limits=SandboxLimits(step_seconds=2)) as repl:
        # A helper call the worker never reads the answer of (the answer is
        # larger than a pipe's buffer): the host must still keep its deadline.
        step = repl.step(
            "import __main__ as w, os, struct, time\n"
            "d = json.dumps({'op': 'call', 'fn': 'load', 'args': {'name': 'deploy_log'}})\n"
            "os.write(w._OUT, struct.pack('>I', len(d)) + d.encode())\n"
            "time.sleep(60)")
        assert step.restarted and step.elapsed_seconds < 10
        deep = repl.step("import __main__ as w, os, struct\n"
                         "d = b'[' * 200000\n"
                         "os.write(w._OUT, struct.pack('>I', len(d)) + d)\n"
                         "import time; time.sleep(60)")
        assert deep.restarted and "malformed" in deep.error
        _assert_usable(repl)


def test_odd_arguments_are_helper_errors(repl: Repl) -> None:
    step = repl.step("deploy_log[float('inf'):3]")
    assert step.error and "HelperError" in step.error and not step.restarted
    _assert_usable(repl)


def test_a_forked_child_that_exits_leaves_the_worker_alone(repl: Repl) -> None:
    run(repl, "import os, sys\nkept = 2\nif os.fork() == 0:\n    sys.exit(0)\n")
    assert run(repl, "print(kept)").output == "2\n"


def test_huge_output_is_cut_in_the_sandbox(repl: Repl) -> None:
    step = repl.step("print('x' * (60 << 20))")
    assert not step.restarted and step.truncated and step.output_chars == (60 << 20) + 1
    assert len(step.output) < 8200 and step.elapsed_seconds < 10


def test_custom_json_variables(store: ctxkit.Store) -> None:
    view = store.view(agent="root", session="j")
    ctx = ctxkit.ExternalizedContext.empty("q")
    ctx.add_variable(view, "config", view.set("config", '{"a": 1, "b": [2, 3]}', type="json"))
    ctx.add_variable(view, "rows", view.set("rows", '[{"id": 1}, {"id": 2}]', type="json"))
    with Repl(view, ctx) as repl:
        out = run(repl, "print(config.keys(), config['b'], rows[1], len(rows))").output
    assert out == "['a', 'b'] [2, 3] {'id': 2} 2\n"
