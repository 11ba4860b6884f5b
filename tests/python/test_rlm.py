"""The reference RLM loop end to end against a scripted endpoint on
loopback: code runs in the sandbox, output goes back, SUBMIT ends the run,
every step is recorded in the store."""

from __future__ import annotations

import pytest

import ctxkit
from ctxkit import rlm
from ctxkit.repl import SandboxLimits
from fake_llm import FakeLlm, scripted

LOG = "".join(f"{i:04d} step {i} {'ERROR disk full on /var' if i == 321 else 'ok'}\n"
              for i in range(2000))


@pytest.fixture
def setup(store: ctxkit.Store):
    view = store.view(agent="root", session="rlm")
    ctx = ctxkit.ExternalizedContext.empty("Which line of deploy_log reports an error?")
    ctx.add_variable(view, "deploy_log", view.set("logs/deploy", LOG))
    return view, ctx


def code(text: str) -> str:
    return f"Let me look.\n```python\n{text}\n```\n"


def run_with(setup, *replies: str, **kwargs):
    view, ctx = setup
    fake = FakeLlm(scripted(*replies))
    try:
        result = rlm.run(view, ctx, endpoint=rlm.Endpoint(fake.base_url, "fake"), **kwargs)
    finally:
        fake.close()
    return view, fake, result


def test_finds_and_submits(setup) -> None:
    view, fake, result = run_with(
        setup,
        code("hits = search(deploy_log, 'ERROR')\nprint(hits)"),
        code("SUBMIT({'line': hits[0]['index'], 'text': hits[0]['preview']})"))
    assert result.stopped == "submitted" and result.iterations == 2
    assert result.outputs == {"line": 321, "text": "0321 step 321 ERROR disk full on /var"}
    first = fake.root_requests()[0]
    assert "deploy_log" in first[1]["content"] and "ERROR disk full" not in first[1]["content"]
    second = fake.root_requests()[1]
    assert "0321 step 321 ERROR" in second[-1]["content"]          # the output went back
    recorded = rlm.steps(view, result.run_key)
    assert [s["step"] for s in recorded] == [1, 2]
    assert recorded[0]["code"].startswith("hits = search") and "0321" in recorded[0]["output"]
    assert recorded[1]["submitted"] == result.outputs
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert view.get(result.steps_ref) == view.get(f"{result.run_key}/steps", scope="session")
    assert "deploy_log" in view.get(f"{result.run_key}/prompt", scope="session").decode()


def test_failing_step_is_reported_to_the_model(setup) -> None:
    _, fake, result = run_with(setup, code("print('a')\n1 / 0"), code("SUBMIT({'ok': True})"))
    assert result.outputs == {"ok": True}
    feedback = fake.root_requests()[1][-1]["content"]
    assert "Output:\na" in feedback and "ZeroDivisionError" in feedback


def test_timeout_restarts_the_sandbox(setup) -> None:
    _, fake, result = run_with(setup, code("x = 1\nwhile True:\n    pass"),
                               code("SUBMIT({'after': 'timeout'})"),
                               sandbox=SandboxLimits(step_seconds=1.0))
    assert result.outputs == {"after": "timeout"}
    feedback = fake.root_requests()[1][-1]["content"]
    assert "TimeoutError" in feedback and "restarted" in feedback


def test_sandbox_violation_is_an_error_not_an_escape(setup) -> None:
    _, fake, result = run_with(
        setup, code("import socket\nsocket.create_connection(('1.1.1.1', 443), timeout=2)"),
        code("open('/etc/passwd').read()"), code("SUBMIT({'done': 1})"))
    assert result.outputs == {"done": 1}
    feedbacks = [r[-1]["content"] for r in fake.root_requests()[1:]]
    assert "Error: OSError" in feedbacks[0] or "Network is unreachable" in feedbacks[0]
    assert "FileNotFoundError" in feedbacks[1]


def test_malformed_reply_asks_for_code(setup) -> None:
    view, fake, result = run_with(setup, "The answer is probably 42.",
                                  code("SUBMIT({'answer': 42})"))
    assert result.outputs == {"answer": 42} and result.iterations == 2
    assert "no ```python code block" in fake.root_requests()[1][-1]["content"]
    assert rlm.steps(view, result.run_key)[0]["code"] is None


def test_sub_calls(setup) -> None:
    view, fake, result = run_with(
        setup,
        code("parts = [deploy_log[i:i + 2] for i in (0, 1000)]\n"
             "answers = llm_query_batched(['summarize: ' + p for p in parts])\n"
             "one = llm_query('hello')\nprint(len(answers), one)"),
        code("SUBMIT({'n': len(answers)})"))
    assert result.outputs == {"n": 2} and result.sub_calls == 3
    step = rlm.steps(view, result.run_key)[0]
    assert "2 echo: hello" in step["output"]
    assert sorted(c["response"][:17] for c in step["sub_calls"]) == [
        "echo: hello", "echo: summarize: ", "echo: summarize: "]
    assert any("1000 step 1000 ok" in c["prompt"] for c in step["sub_calls"])


def test_limits_stop_the_run(setup) -> None:
    _, _, result = run_with(setup, code("print('thinking')"),
                            limits=rlm.RlmLimits(max_iterations=3))
    assert result.stopped == "max_iterations" and result.outputs is None
    assert result.iterations == 3
    _, _, capped = run_with(setup, code("print(llm_query_batched(['x'] * 5))"),
                            limits=rlm.RlmLimits(max_iterations=2, max_sub_calls=4))
    assert capped.sub_calls == 0


def test_needs_an_endpoint(setup, monkeypatch: pytest.MonkeyPatch) -> None:
    view, ctx = setup
    monkeypatch.delenv("CTXKIT_LLM_BASE_URL", raising=False)
    with pytest.raises(ctxkit.InvalidArgumentError, match="CTXKIT_LLM_BASE_URL"):
        rlm.run(view, ctx)
    with pytest.raises(ctxkit.UnavailableError):
        rlm.run(view, ctx, endpoint=rlm.Endpoint("http://127.0.0.1:9/v1", "m",
                                                 timeout_seconds=2))


def test_extract_code() -> None:
    assert rlm.extract_code("x\n```python\na = 1\n```\ny\n```\nb = 2\n```") == "a = 1\n\nb = 2"
    assert rlm.extract_code("no code here") is None
