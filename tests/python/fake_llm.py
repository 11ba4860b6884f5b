"""A scripted chat-completions endpoint on loopback for the RLM tests: a
real HTTP server (http.server) whose replies come from a Python function of
the request's messages."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Callable


class FakeLlm:
    def __init__(self, respond: Callable[[list[dict]], str]) -> None:
        self.respond = respond
        self.requests: list[list[dict]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                messages = body["messages"]
                fake.requests.append(messages)
                try:
                    text = fake.respond(messages)
                except Exception as e:  # noqa: BLE001 (becomes an HTTP 500)
                    self.send_error(500, str(e))
                    return
                reply = {"choices": [{"message": {"role": "assistant", "content": text}}],
                         "usage": {"prompt_tokens": 10 * len(messages),
                                   "completion_tokens": len(text.split())}}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def root_requests(self) -> list[list[dict]]:
        return [m for m in self.requests if m[0]["role"] == "system"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def scripted(*replies: str) -> Callable[[list[dict]], str]:
    """Root-model replies in order (the last repeats); a sub-call (one user
    message) is answered with 'echo: <prompt>'."""
    state = {"i": 0}

    def respond(messages: list[dict]) -> str:
        if messages[0]["role"] != "system":
            return "echo: " + messages[-1]["content"]
        i = min(state["i"], len(replies) - 1)
        state["i"] += 1
        return replies[i]

    return respond
