#!/usr/bin/env python3
"""A scripted agent that answers from earlier tool outputs with the agent
tools alone, through an OpenAI-format loop, at several budgets.

TURNS turns each ingest a user message, one tool call and its output (a
service log of 12-20k tokens holding one deploy code), then render the
request with the agent tools (`render(budget, tools=True)`). After each
render: is the newest output visible (whole when it fits, else an
excerpt), and what share of the budget do placeholders take. Then the
scripted model is asked for every service's deploy code: it finds the
output's ref in what it sees (the tool message: whole, excerpt or
placeholder; or, for compacted turns, by calling ctxkit_expand on the
compaction block), calls ctxkit_search with that ref and reads the answer.
Reported per budget: answers right, tokens the tool results cost, tool
calls made, the largest placeholder share, turns whose newest output was
whole / an excerpt.

  python3 bench/agent_tools.py [BUILD_DIR] [TURNS]

Defaults: build/release, 30 turns; budgets 8k, 32k, 128k.
"""

import json
import os
import random
import re
import shutil
import sys

from benchlib import arg, make_tmpdir

BUDGETS = (8_000, 32_000, 128_000)


def service_log(service, code):
    rng = random.Random(service)
    lines = [f"2026-11-28T10:{i // 60:02d}:{i % 60:02d}Z service-{service} "
             f"req={rng.getrandbits(32):08x} status=200 "
             f"took={rng.randrange(900)}ms"
             for i in range(rng.randrange(400, 650))]
    lines[rng.randrange(50, 350)] = (f"2026-11-28T10:03:00Z service-{service} "
                                     f"deploy code {code} accepted")
    return "\n".join(lines) + "\n"


def turn(service, code):
    call_id = f"call_{service}"
    return [
        {"role": "user", "content": f"Check the logs of service {service}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "read_logs",
                          "arguments": json.dumps({"service": service})}}]},
        {"role": "tool", "tool_call_id": call_id,
         "content": service_log(service, code)},
        {"role": "assistant", "content": f"Service {service} looks healthy."},
    ]


def run(ctxkit, home, budget, turns):
    store = ctxkit.Store(home)
    session = ctxkit.Session.create(store, f"b{budget}")
    codes = {s: f"K{s * 7919 % 100003:06d}" for s in range(1, turns + 1)}
    log, whole, excerpt, worst_share = [], 0, 0, 0.0
    for service in range(1, turns + 1):
        log += turn(service, codes[service])
        session.ingest(log)
        result = session.render(budget, tools=True)
        assert result.tokens <= budget
        newest = result.request["messages"][-2]["content"]
        if "[excerpt of" in newest:
            excerpt += 1
        elif "deploy code" in newest:
            whole += 1
        worst_share = max(worst_share,
                          result.breakdown.placeholders / budget)
    seen = result.request["messages"]
    cost = {"tokens": 0, "calls": 0}

    def call(name, **args):
        answer = session.call({"id": "q", "type": "function",
                               "function": {"name": name,
                                            "arguments": json.dumps(args)}})
        cost["tokens"] += ctxkit.count_tokens(answer["content"])
        cost["calls"] += 1
        return answer["content"]

    expanded = ""
    for m in seen:
        if m["role"] == "system" and m["content"].startswith("[compacted"):
            ref = re.search(r"(ck:\S+ctxkit\.session/compaction/\S+)",
                            m["content"]).group(1)
            expanded += call("ctxkit_expand", compaction=ref)
    right = 0
    for service, code in codes.items():
        message = next((m for m in seen
                        if m.get("tool_call_id") == f"call_{service}"), None)
        if message is not None:
            # A placeholder names the output by handle (#12); a shown
            # output's reference line and an excerpt by ref.
            ref = re.search(r"ck:[^\s\]\"]+|#\d+", message["content"]).group(0)
        else:
            lines = [json.loads(x) for x in expanded.splitlines()
                     if f'"call_id":"call_{service}"' in x]
            if not lines:
                continue
            ref = lines[0]["ref"]
        found = call("ctxkit_search", pattern="deploy code", ref=ref)
        match = re.search(r"deploy code (\S+) accepted", found)
        right += bool(match and match.group(1) == code)
    return {"budget": budget, "right": right, "questions": turns,
            "tool_tokens": cost["tokens"], "tool_calls": cost["calls"],
            "placeholder_share_max": round(worst_share * 100, 1),
            "newest_whole": whole, "newest_excerpt": excerpt}


def main():
    build = arg(1, "build/release")
    turns = arg(2, 30, int)
    sys.path.insert(0, os.path.join(build, "python"))
    import ctxkit  # noqa: E402 (from BUILD_DIR/python)

    tmp = make_tmpdir("ctxkit-agent-tools-")
    try:
        print("| budget | answers right | tool-result tokens | tool calls |"
              " placeholders, max % of budget | newest output whole / excerpt |")
        print("|---|---|---|---|---|---|")
        for budget in BUDGETS:
            r = run(ctxkit, os.path.join(tmp, str(budget)), budget, turns)
            print(f"| {budget:,} | {r['right']}/{r['questions']} | "
                  f"{r['tool_tokens']:,} | {r['tool_calls']} | "
                  f"{r['placeholder_share_max']} | "
                  f"{r['newest_whole']} / {r['newest_excerpt']} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
