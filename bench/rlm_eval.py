#!/usr/bin/env python3
"""Long-context tasks, the RLM loop against direct prompting.

Generates synthetic tasks on this machine (nothing downloaded):
  S-NIAH      one needle ("The special magic number for <city> is <n>.")
              at a random depth of a haystack of filler sentences, for each
              haystack size (tokens); the answer is the number.
  aggregate   an OOLONG-style count: N labelled log items; how many carry
              one label. The answer needs every item, not one passage.
and runs each through
  rlm         ctxkit.rlm.run: the context as a REPL variable, the model
              explores it with code (search, peek, llm_query...)
  direct      the whole context in the prompt, cut to --window tokens (the
              model's window), then the question
reporting accuracy and tokens (prompt + completion, root and sub-calls).

    python3 bench/rlm_eval.py [--build DIR] [--sizes 32000,131072,1000000]
                              [--items 2000] [--window 128000] [--fake]

The endpoint is CTXKIT_LLM_BASE_URL / CTXKIT_LLM_MODEL (/ CTXKIT_LLM_API_KEY);
without one the script says so and exits. --fake serves a scripted,
rule-based stand-in on loopback instead (a smoke test of the machinery:
its "accuracy" measures nothing about models); make test runs that.
"""

import argparse
import glob
import http.server
import json
import os
import random
import re
import shutil
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

CITIES = ["Lisbon", "Osaka", "Quito", "Tallinn", "Accra", "Hobart", "Leon", "Perm"]
WORDS = ("the of report system value quiet river market engine window signal garden "
         "paper stone light method north answer metal field music travel number").split()


def filler(rng, tokens, count_tokens):
    """Filler sentences of `tokens` o200k tokens (to within one sentence)."""
    out, n = [], 0
    while n < tokens:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
        out.append(sentence.capitalize() + ".\n")
        n += count_tokens(out[-1])
    return out


def niah_task(rng, tokens, count_tokens):
    lines = filler(rng, tokens, count_tokens)
    city, number = rng.choice(CITIES), str(rng.randint(1_000_000, 9_999_999))
    depth = rng.randint(0, len(lines))
    lines.insert(depth, f"The special magic number for {city} is {number}.\n")
    return {"name": f"S-NIAH {tokens} tokens", "context": "".join(lines),
            "question": f"What is the special magic number for {city}? Answer with the number.",
            "answer": number}


def aggregate_task(rng, items):
    labels = ["urgent", "routine", "deferred"]
    lines, count = [], 0
    for i in range(items):
        label = rng.choice(labels)
        count += label == "urgent"
        lines.append(f"item {i}: {' '.join(rng.choice(WORDS) for _ in range(10))} "
                     f"[label: {label}]\n")
    return {"name": f"aggregate {items} items", "context": "".join(lines),
            "question": "How many items carry the label 'urgent'? Answer with the number.",
            "answer": str(count)}


def correct(answer_text, expected):
    return re.findall(r"\d+", str(answer_text or ""))[-1:] == [expected]


def run_direct(client, ctxkit, task, window):
    context = task["context"]
    tokens = ctxkit.encode(context)
    if len(tokens) > window:
        context = ctxkit.decode(tokens[:window]).decode("utf-8", errors="ignore")
    text, p, c = client.complete([{"role": "user", "content":
                                   f"{context}\n\nQuestion: {task['question']}"}])
    return correct(text, task["answer"]), p + c


def run_rlm(rlm, ctxkit, view, task, endpoint):
    ctx = ctxkit.ExternalizedContext.empty(task["question"])
    ctx.add_variable(view, "context", view.set("eval/context", task["context"]))
    result = rlm.run(view, ctx, endpoint=endpoint,
                     limits=rlm.RlmLimits(max_iterations=12))
    answer = (result.outputs or {}).get("answer")
    return correct(answer, task["answer"]), result.prompt_tokens + result.completion_tokens


# -- the --fake stand-in -------------------------------------------------------

FAKE_RLM_CODE = """```python
task = {question!r}
m = re.search(r"magic number for (\\w+)", task)
if m:
    hits = search(context, "special magic number for " + m.group(1), max_results=1)
    SUBMIT({{"answer": re.findall(r"\\d+", hits[0]["preview"])[-1] if hits else None}})
label = re.search(r"label '(\\w+)'", task).group(1)
SUBMIT({{"answer": len(search(context, "[label: " + label + "]", max_results=1000000))}})
```"""


def fake_reply(messages):
    """Rule-based: root prompts get code that solves the two task kinds;
    direct prompts get what a careful reader of the prompt would answer."""
    if messages[0]["role"] == "system":
        question = re.search(r"Your task: (.*)", messages[1]["content"]).group(1)
        return FAKE_RLM_CODE.format(question=question)
    prompt = messages[-1]["content"]
    question = prompt.rsplit("Question: ", 1)[-1]
    m = re.search(r"magic number for (\w+)", question)
    if m:
        found = re.search(rf"magic number for {m.group(1)} is (\d+)", prompt)
        return found.group(1) if found else "I could not find it."
    label = re.search(r"label '(\w+)'", question).group(1)
    return str(prompt.count(f"[label: {label}]"))


def start_fake():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            text = fake_reply(body["messages"])
            data = json.dumps({"choices": [{"message": {"content": text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def main():
    paragraphs = __doc__.strip().split("\n\n")  # The usage line is argparse's.
    parser = argparse.ArgumentParser(
        description=paragraphs[0],
        epilog="\n\n".join(p for p in paragraphs[1:] if not p.startswith("    python3")),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/release", metavar="DIR",
                        help="the CMake build directory whose python/ holds the ctxkit "
                             "package (default: build/release, what `make run` builds)")
    parser.add_argument("--sizes", default="32000,131072,1000000", metavar="N,N,...",
                        help="S-NIAH haystack sizes in tokens, comma-separated "
                             "(default: %(default)s)")
    parser.add_argument("--items", type=int, default=2000, metavar="N",
                        help="items of the aggregate task (default: %(default)s)")
    parser.add_argument("--window", type=int, default=128000, metavar="TOKENS",
                        help="the direct prompt's window: its context is cut to this "
                             "many tokens (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=7,
                        help="seed of the task generator (default: %(default)s)")
    parser.add_argument("--fake", action="store_true",
                        help="serve a scripted, rule-based stand-in model on loopback "
                             "instead of an endpoint (a smoke test of the machinery)")
    args = parser.parse_args()
    package = os.path.join(os.path.abspath(args.build), "python")
    if not glob.glob(os.path.join(package, "ctxkit", "_ctxkit*.so")):
        print(f"rlm_eval: no built ctxkit package in {package}; build it with `make run` "
              "(or `cmake --preset release && cmake --build --preset release --target "
              "ctxkit_python`), or name another build with --build DIR", file=sys.stderr)
        return 2
    sys.path.insert(0, package)
    import ctxkit
    from ctxkit import rlm

    server = None
    if args.fake:
        server, url = start_fake()
        endpoint = rlm.Endpoint(url, "fake-rule-based")
    else:
        endpoint = rlm.Endpoint.from_env()
        if endpoint is None:
            print("rlm_eval: no endpoint configured (set CTXKIT_LLM_BASE_URL and "
                  "CTXKIT_LLM_MODEL, or pass --fake for a smoke test); nothing run.")
            return 0
    rng = random.Random(args.seed)
    tasks = [niah_task(rng, int(s), ctxkit.count_tokens) for s in args.sizes.split(",") if s]
    tasks.append(aggregate_task(rng, args.items))
    client = rlm.ChatClient(endpoint)
    tmp = benchlib.make_tmpdir("ctxkit-rlm-eval-")
    try:
        view = ctxkit.Store(os.path.join(tmp, "store")).view(agent="eval", session="eval")
        print(f"endpoint: {endpoint!r}; direct window: {args.window} tokens\n")
        print("| task | context tokens | RLM correct | RLM tokens | direct correct "
              "| direct tokens |")
        print("|---|---:|:---:|---:|:---:|---:|")
        failed = 0
        for task in tasks:
            r_ok, r_tokens = run_rlm(rlm, ctxkit, view, task, endpoint)
            d_ok, d_tokens = run_direct(client, ctxkit, task, args.window)
            print(f"| {task['name']} | {ctxkit.count_tokens(task['context'])} | "
                  f"{'yes' if r_ok else 'no'} | {r_tokens} | {'yes' if d_ok else 'no'} | "
                  f"{d_tokens} |", flush=True)
            failed += not r_ok
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if server:
            server.shutdown()
    if args.fake and failed:
        print(f"rlm_eval: the scripted stand-in failed {failed} task(s): the loop is broken")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
