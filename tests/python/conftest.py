"""Fixtures of the Python package's tests: a fresh store per test and the
ctxkit binary of the same build (to check the two faces agree)."""

from __future__ import annotations

import os
import pathlib
from typing import Iterator

import pytest

import ctxkit


@pytest.fixture
def home(tmp_path: pathlib.Path) -> str:
    return str(tmp_path / "store")


@pytest.fixture
def store(home: str) -> ctxkit.Store:
    return ctxkit.Store(home)


@pytest.fixture
def view(store: ctxkit.Store) -> ctxkit.View:
    return store.view(agent="tester", session="s1")


@pytest.fixture
def ctxkit_binary() -> str:
    path = os.environ.get("CTXKIT_BINARY", "")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("CTXKIT_BINARY must name the ctxkit binary of this build")
    return path


def tool_turn(turn: int, lines: int = 20) -> list[dict]:
    """One OpenAI-format turn: user asks, assistant calls grep, the tool
    answers with `lines` lines, the assistant replies."""
    call = f"call_{turn}"
    output = "\n".join(f"src/file_{turn}_{i}.cc:{i}: thing {turn} found here"
                       for i in range(lines))
    return [
        {"role": "user", "content": f"Please look for thing {turn}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call, "type": "function",
             "function": {"name": "grep", "arguments": f'{{"q":"thing {turn}"}}'}}]},
        {"role": "tool", "tool_call_id": call, "content": output},
        {"role": "assistant", "content": f"Found {lines} matches for thing {turn}"},
    ]


def openai_log(turns: int, lines: int = 20) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": "You are a coding agent."}]
    for t in range(turns):
        messages.extend(tool_turn(t, lines))
    return messages


@pytest.fixture
def log_builder() -> Iterator[object]:
    yield openai_log
