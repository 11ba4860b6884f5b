"""A reference RLM loop (recursive language model) over a SPEC-25 context.

    ctx = ctxkit.ExternalizedContext.from_session(view, "run-7", "Why did the deploy fail?")
    result = ctxkit.rlm.run(view, ctx)          # endpoint from CTXKIT_LLM_* by default
    result.outputs                              # what the model SUBMITted, or None
    result.run_key                              # the recorded steps, in the store

The root model gets the SPEC-25 root prompt (variable summaries and
helpers, no content) and replies with Python; the code runs in the
sandboxed REPL (ctxkit.repl) and its output goes back; this repeats until
the code calls SUBMIT({...}) or a limit is reached. The code may call
llm_query(prompt) and llm_query_batched(prompts) (run concurrently): plain
completions by the same endpoint, on whatever context the code put in the
prompt. Sub-calls do not recurse (depth 1). Every step -- the model's
reply, the code, its output, each sub-call and the tokens -- is appended to
the store as one JSON line of the stream `ctxkit.rlm/<run>/steps` in the
view's session scope, with the root prompt and the result beside it, so a
run can be read back and replayed from its refs (steps()).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import os
import re
import secrets
import time
import urllib.error
import urllib.request
from typing import Any, Optional

from ctxkit import _ctxkit
from ctxkit._errors import InvalidArgumentError, UnavailableError
from ctxkit.repl import Repl, SandboxLimits, StepResult

SYSTEM_PROMPT = """You are a recursive language model working in a Python REPL.
The context is not in this conversation: it is in REPL variables, described
below, that you explore with code. Reply with Python in one ```python block
per message; you will get back what it prints (cut when long). Keep each
step small and print only what you need. Besides the helpers listed below,
llm_query(prompt) asks a language model (put the context it needs in the
prompt) and llm_query_batched(prompts) asks several at once. When you know
the answer, call SUBMIT({...}) with your outputs in a code block."""

_CODE = re.compile(r"```(?:python|py|repl)?[ \t]*\n(.*?)```", re.DOTALL)


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint."""

    base_url: str
    model: str
    api_key: str = ""
    timeout_seconds: float = 120.0

    @staticmethod
    def from_env() -> Optional["Endpoint"]:
        """CTXKIT_LLM_BASE_URL, CTXKIT_LLM_MODEL (and CTXKIT_LLM_API_KEY), or None."""
        base = os.environ.get("CTXKIT_LLM_BASE_URL", "")
        model = os.environ.get("CTXKIT_LLM_MODEL", "")
        if not base or not model:
            return None
        return Endpoint(base, model, os.environ.get("CTXKIT_LLM_API_KEY", ""))

    def __repr__(self) -> str:  # Never the key.
        return f"Endpoint(base_url={self.base_url!r}, model={self.model!r})"


@dataclasses.dataclass(frozen=True)
class RlmLimits:
    """When the loop stops without a SUBMIT."""

    max_iterations: int = 20          # Root-model turns.
    max_tokens: int = 500_000         # Prompt + completion tokens, root and sub-calls.
    max_seconds: float = 600.0        # Wall time of the whole run.
    max_sub_calls: int = 200          # llm_query prompts in all.
    sub_call_concurrency: int = 8     # llm_query_batched prompts at once.


@dataclasses.dataclass
class RlmResult:
    outputs: Optional[dict]           # SUBMIT's outputs; None when a limit stopped it.
    stopped: str                      # "submitted" or which limit ("max_iterations", ...).
    iterations: int
    sub_calls: int
    prompt_tokens: int
    completion_tokens: int
    elapsed_seconds: float
    run_key: str                      # Key prefix of the run's objects in the store.
    steps_ref: Optional[_ctxkit.Ref]  # Static ref of the steps stream's last version.


class _Budget:
    def __init__(self, limits: RlmLimits) -> None:
        self.limits = limits
        self.start = time.monotonic()
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.sub_calls = 0

    def exceeded(self) -> Optional[str]:
        if self.prompt_tokens + self.completion_tokens >= self.limits.max_tokens:
            return "max_tokens"
        if time.monotonic() - self.start >= self.limits.max_seconds:
            return "max_seconds"
        return None


class ChatClient:
    """POSTs to <base_url>/chat/completions (standard library only)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    def complete(self, messages: list[dict]) -> tuple[str, int, int]:
        """The reply text and its (prompt, completion) tokens."""
        body = json.dumps({"model": self.endpoint.model, "messages": messages}).encode()
        request = urllib.request.Request(
            self.endpoint.base_url.rstrip("/") + "/chat/completions", data=body,
            headers={"Content-Type": "application/json",
                     **({"Authorization": f"Bearer {self.endpoint.api_key}"}
                        if self.endpoint.api_key else {})})
        try:
            with urllib.request.urlopen(request, timeout=self.endpoint.timeout_seconds) as r:
                reply = json.loads(r.read())
            text = reply["choices"][0]["message"]["content"] or ""
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError,
                TypeError) as e:
            raise UnavailableError(f"chat endpoint {self.endpoint.base_url}: {e}") from None
        usage = reply.get("usage") or {}
        prompt = usage.get("prompt_tokens")
        completion = usage.get("completion_tokens")
        if not isinstance(prompt, int):
            prompt = sum(_ctxkit.count_tokens(str(m.get("content", ""))) for m in messages)
        if not isinstance(completion, int):
            completion = _ctxkit.count_tokens(text)
        return text, prompt, completion


def extract_code(reply: str) -> Optional[str]:
    """The Python of a reply's fenced code blocks, joined; None if it has none."""
    blocks = [b.strip("\n") for b in _CODE.findall(reply)]
    blocks = [b for b in blocks if b.strip()]
    return "\n\n".join(blocks) if blocks else None


def _feedback(step: StepResult) -> str:
    parts = []
    if step.output:
        parts.append(f"Output:\n{step.output}")
    if step.truncated:
        parts.append(f"(output cut: {step.output_chars} characters in all)")
    if step.error:
        parts.append(f"Error: {step.error}")
    if not parts:
        parts.append("(no output)")
    return "\n".join(parts)


def run(view: _ctxkit.View, context: _ctxkit.ExternalizedContext, *,
        endpoint: Optional[Endpoint] = None, limits: RlmLimits = RlmLimits(),
        sandbox: SandboxLimits = SandboxLimits(step_seconds=120.0),
        llm: Optional[_ctxkit.LlmEndpoint] = None,
        embeddings: Optional[_ctxkit.EmbeddingsConfig] = None) -> RlmResult:
    """Runs the loop until SUBMIT or a limit; records every step.

    InvalidArgumentError when no endpoint is given or configured, or the
    context has no query. Endpoint failures of the root model end the run
    with UnavailableError (the steps so far are recorded); a sub-call's
    failure is an error the code sees.
    """
    endpoint = endpoint or Endpoint.from_env()
    if endpoint is None:
        raise InvalidArgumentError(
            "no chat endpoint: pass endpoint= or set CTXKIT_LLM_BASE_URL and CTXKIT_LLM_MODEL")
    if not context.query:
        raise InvalidArgumentError("the context has no query (the task)")
    client = ChatClient(endpoint)
    budget = _Budget(limits)
    run_key = f"ctxkit.rlm/{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
    recorder = _Recorder(view, run_key)
    root_prompt = context.root_prompt().text
    recorder.put("prompt", root_prompt)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=limits.sub_call_concurrency)
    sub_calls: list[dict] = []

    def llm_query(prompts: list[str]) -> list[str]:
        if budget.sub_calls + len(prompts) > limits.max_sub_calls:
            raise InvalidArgumentError(f"sub-call limit reached ({limits.max_sub_calls})")
        if budget.exceeded():
            raise InvalidArgumentError(f"run limit reached ({budget.exceeded()})")
        budget.sub_calls += len(prompts)
        answers = list(pool.map(
            lambda p: client.complete([{"role": "user", "content": p}]), prompts))
        for prompt, (text, p_tokens, c_tokens) in zip(prompts, answers):
            budget.prompt_tokens += p_tokens
            budget.completion_tokens += c_tokens
            sub_calls.append({"prompt": prompt, "response": text,
                              "prompt_tokens": p_tokens, "completion_tokens": c_tokens})
        return [text for text, _, _ in answers]

    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": root_prompt}]
    outputs: Optional[dict] = None
    stopped = "max_iterations"
    iterations = 0
    try:
        with Repl(view, context, limits=sandbox, llm=llm, embeddings=embeddings,
                  llm_query=llm_query) as repl:
            while iterations < limits.max_iterations:
                reason = budget.exceeded()
                if reason:
                    stopped = reason
                    break
                iterations += 1
                reply, p_tokens, c_tokens = client.complete(messages)
                budget.prompt_tokens += p_tokens
                budget.completion_tokens += c_tokens
                messages.append({"role": "assistant", "content": reply})
                code = extract_code(reply)
                sub_calls.clear()
                if code is None:
                    feedback = ("Your reply had no ```python code block. Reply with Python "
                                "code; call SUBMIT({...}) in code when you are done.")
                    step = None
                else:
                    step = repl.step(code)
                    feedback = _feedback(step)
                recorder.step(iterations, reply, code, step, list(sub_calls),
                              p_tokens, c_tokens)
                if step is not None and step.submitted is not None:
                    outputs, stopped = step.submitted, "submitted"
                    break
                messages.append({"role": "user", "content": feedback})
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    result = RlmResult(outputs=outputs, stopped=stopped, iterations=iterations,
                       sub_calls=budget.sub_calls, prompt_tokens=budget.prompt_tokens,
                       completion_tokens=budget.completion_tokens,
                       elapsed_seconds=time.monotonic() - budget.start, run_key=run_key,
                       steps_ref=recorder.last_ref)
    recorder.put("result", json.dumps({
        f.name: getattr(result, f.name) for f in dataclasses.fields(result)
        if f.name != "steps_ref"}))
    return result


class _Recorder:
    """The run's objects: <run>/prompt, <run>/steps (NDJSON stream), <run>/result."""

    def __init__(self, view: _ctxkit.View, run_key: str) -> None:
        self.view = view
        self.run_key = run_key
        self.last_ref: Optional[_ctxkit.Ref] = None

    def put(self, name: str, text: str) -> None:
        self.view.set(f"{self.run_key}/{name}", text, scope="session",
                      type="json" if name == "result" else "text")

    def step(self, n: int, reply: str, code: Optional[str], step: Optional[StepResult],
             sub_calls: list[dict], prompt_tokens: int, completion_tokens: int) -> None:
        record: dict[str, Any] = {"step": n, "reply": reply, "code": code,
                                  "prompt_tokens": prompt_tokens,
                                  "completion_tokens": completion_tokens,
                                  "sub_calls": sub_calls}
        if step is not None:
            record.update(output=step.output, output_chars=step.output_chars,
                          error=step.error, submitted=step.submitted,
                          restarted=step.restarted, elapsed_seconds=step.elapsed_seconds,
                          deferred={str(k): v for k, v in step.deferred.items()})
        line = json.dumps(record, default=str) + "\n"
        self.last_ref = self.view.append(f"{self.run_key}/steps", line, scope="session")


def steps(view: _ctxkit.View, run_key: str) -> list[dict]:
    """The recorded steps of a run, in order (from its steps stream)."""
    text = view.get(f"{run_key}/steps", scope="session").decode()
    return [json.loads(line) for line in text.splitlines() if line]
