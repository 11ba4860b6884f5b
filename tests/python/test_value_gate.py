"""One gate for values: the same hostile and edge-case writes through the
three faces (Python, the CLI, the MCP server over stdio) get the same
outcome, because the store itself decides (include/ctxkit/store.h) and the
faces only translate. Each case is the status code name every face reports
("ok" when the write is accepted)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from typing import Optional

import pytest

import ctxkit


@dataclass
class Case:
    name: str
    key: str
    value: bytes
    type: str = "text"
    tags: list[str] = field(default_factory=list)
    scope: str = ""
    expect: str = "ok"
    # JSON text cannot carry every byte string: such a case skips MCP.
    mcp: bool = True


DEEP = b"[" * 600 + b"]" * 600
CASES = [
    Case("plain text", "k", b"hello"),
    Case("empty value", "k", b""),
    Case("text with a NUL", "k", b"a\x00b"),
    Case("latin-1 text", "k", b"caf\xe9\n", mcp=False),
    Case("emoji key", "emoji-\U0001f600", b"x"),
    Case("json object", "k", b'{"a": [1, 2.5, null]}', type="json"),
    Case("json nested 600 deep", "k", DEEP, type="json",
         expect="invalid_argument"),
    Case("json nested 500 deep", "k", b"[" * 500 + b"]" * 500, type="json"),
    Case("json with a raw NUL", "k", b'{"a": "x\x00"}', type="json",
         expect="invalid_argument"),
    Case("json huge number", "k", b"1e400", type="json",
         expect="invalid_argument"),
    Case("json long integer", "k", b"123456789012345678901234567890",
         type="json"),
    Case("json truncated", "k", b'{"a": ', type="json",
         expect="invalid_argument"),
    Case("json two documents", "k", b"{} {}", type="json",
         expect="invalid_argument"),
    Case("empty key", "", b"x", expect="invalid_argument"),
    Case("key with a control byte", "a\x01b", b"x", expect="invalid_argument"),
    Case("key of 257 bytes", "k" * 257, b"x", expect="invalid_argument"),
    Case("key of 256 bytes", "k" * 256, b"x"),
    Case("tag of 65 bytes", "k", b"x", tags=["t" * 65],
         expect="invalid_argument"),
    Case("tag with a newline", "k", b"x", tags=["a\nb"],
         expect="invalid_argument"),
    Case("empty tag", "k", b"x", tags=[""], expect="invalid_argument"),
    Case("unknown scope", "k", b"x", scope="everywhere",
         expect="invalid_argument"),
    Case("unknown type", "k", b"x", type="picture",
         expect="invalid_argument"),
]


def python_outcome(home: str, c: Case) -> str:
    view = ctxkit.Store(home).view()
    try:
        view.set(c.key, c.value, type=c.type, tags=c.tags, scope=c.scope)
    except ctxkit.Error as e:
        return e.code
    return "ok"


def cli_outcome(binary: str, home: str, c: Case) -> str:
    args = [binary, "--home", home, "set", c.key, "-", "--type", c.type]
    for t in c.tags:
        args += ["--tag", t]
    if c.scope:
        args += ["--scope", c.scope]
    r = subprocess.run(args, input=c.value, capture_output=True, timeout=60)
    if r.returncode == 0:
        return "ok"
    err = r.stderr.decode("utf-8", "replace")
    assert err.startswith("ctxkit: "), err
    return err[len("ctxkit: "):].split(":", 1)[0]


class Mcp:
    """`ctxkit mcp` over stdio, initialized."""

    def __init__(self, binary: str, home: str) -> None:
        self.proc = subprocess.Popen([binary, "--home", home, "mcp"],
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-11-25",
                                 "capabilities": {},
                                 "clientInfo": {"name": "test", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                return msg

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)

    def outcome(self, c: Case) -> str:
        args: dict = {"key": c.key, "value": c.value.decode("utf-8"),
                      "type": c.type}
        if c.tags:
            args["tags"] = c.tags
        if c.scope:
            args["scope"] = c.scope
        r = self.call("tools/call", {"name": "set", "arguments": args})
        assert "result" in r, r
        if not r["result"]["isError"]:
            return "ok"
        text = r["result"]["content"][0]["text"]
        if text.startswith("invalid arguments for set"):
            return "invalid_argument"  # Refused by the tool's schema.
        assert text.startswith("set failed: "), text
        return text[len("set failed: "):].split(":", 1)[0]


@pytest.fixture
def mcp(home: str, ctxkit_binary: str):
    server: Optional[Mcp] = Mcp(ctxkit_binary, home)
    yield server
    server.close()


def test_every_face_gets_the_stores_answer(home: str, ctxkit_binary: str,
                                           mcp: Mcp) -> None:
    # One store for every face: a case that succeeds adds a version only.
    got = []
    for c in CASES:
        outcomes = {"python": python_outcome(home, c),
                    "cli": cli_outcome(ctxkit_binary, home, c)}
        if c.mcp:
            outcomes["mcp"] = mcp.outcome(c)
        got.append((c.name, outcomes))
    wrong = [(name, o) for (name, o), c in zip(got, CASES)
             if set(o.values()) != {c.expect}]
    assert not wrong, wrong
