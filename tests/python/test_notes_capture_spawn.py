"""Notes, tool-output capture and sub-agents through Python."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

import ctxkit


def test_notes_add_search_update_show(store: ctxkit.Store, home: str) -> None:
    view = store.view(agent="auditor", session="s1")
    notes = ctxkit.Notebook.open(view)
    assert notes.root == os.path.join(home, "notes-root")
    path = notes.add("auditor", "jwt expiry", "JWT expiry is 15 min.", session="s1",
                     type="finding", tags=["security"])
    hits = notes.search("jwt expiry", tags=["security"])
    assert [h.path for h in hits] == [path] and hits[0].header.agent == "auditor"
    notes.update(path, "auditor", "checked again", body="JWT expiry is 10 min.")
    shown = notes.show(path)
    assert "10 min" in shown.body and "checked again" in shown.content
    assert shown.header.tags == ["security"]
    with pytest.raises(ctxkit.InvalidArgumentError):
        notes.add("auditor", "x", "body", type="rumour")
    with pytest.raises(ctxkit.NotFoundError):
        notes.show("no/such/note.md")


def test_execution_log_reads_what_the_cli_logged(
        store: ctxkit.Store, home: str, ctxkit_binary: str) -> None:
    assert ctxkit.read_execution_log(store) == []
    binary = ctxkit_binary
    env = {k: v for k, v in os.environ.items()
           if k not in ("CTXKIT_AGENT", "CTXKIT_SESSION", "SFA_CONTEXT_STORE")}
    env["CTXKIT_HOME"] = home
    slugs = [f"early {i}" for i in range(19)] + ["first", "second", "third"]
    for slug in slugs:
        subprocess.run([binary, "notes", "add", "--agent", "planner", "--type",
                        "finding", "--slug", slug], input=f"# {slug}\n",
                       text=True, env=env, check=True, capture_output=True)
    # 22 entries: without a limit, Python and the CLI show the library's 20.
    recent = ctxkit.read_execution_log(store)
    printed = json.loads(subprocess.run(
        [binary, "--json", "log"], env=env, check=True,
        capture_output=True, text=True).stdout)
    assert len(recent) == 20
    assert [e.timestamp for e in recent] == [p["timestamp"] for p in printed]
    entries = ctxkit.read_execution_log(store, limit=100)
    assert len(entries) == 22
    assert [e.command for e in entries] == ["notes add"] * 22
    assert [e.timestamp for e in recent] == [e.timestamp for e in entries[2:]]
    assert entries[0].agent == "planner" and entries[0].status == "ok"
    assert entries[0].exit_code == 0 and entries[0].duration_ms >= 0
    assert entries[21].context_files[0].endswith("third.md")
    last = ctxkit.read_execution_log(store, limit=2)
    assert [e.timestamp for e in last] == [e.timestamp for e in entries[20:]]
    assert entries[0].to_dict()["command"] == "notes add"
    with pytest.raises(TypeError):
        ctxkit.read_execution_log(store, limit=-1)


def test_capture_save_load_select(store: ctxkit.Store) -> None:
    view = store.view(agent="a", session="tools")
    tools = ctxkit.ToolOutputCapture.open(view)
    small = tools.save("grep", {"pattern": "TODO"}, {"matches": ["a.cc:1: TODO fix"]})
    big = tools.save("cat", {"path": "log"}, {"text": "disk full on /var\n" * 5000})
    assert small.startswith("ck:") and not big.startswith("ck:")
    loaded = tools.load(small)
    assert loaded.args == {"pattern": "TODO"} and loaded.result["matches"][0].endswith("fix")
    assert {p.tool_name for p in tools.list()} == {"grep", "cat"}
    chosen = tools.select("which output mentions the full disk", max_selected=1)
    assert chosen.method == "bm25" and chosen.selected[0].tool_name == "cat"
    assert tools.clear() == 1          # the one file (the small output is a ref)
    assert tools.list() == []             # in-memory outputs are forgotten too


def test_spawn_a_sub_agent(store: ctxkit.Store, tmp_path) -> None:
    parent = store.view(agent="lead", session="s")
    spec = parent.set("spec", "Build the parser.", scope="agent")
    child = ctxkit.spawn(parent, "Implement the spec.", [("spec", spec)],
                         child_agent="worker", manifest_path=str(tmp_path / "m.json"))
    assert child.manifest.refs == {"spec": spec}
    manifest = ctxkit.load_manifest(child.manifest_path)
    view = ctxkit.open_child_view(store, manifest)
    assert view.agent_id == "worker"
    assert ctxkit.resolve_context_ref(view, manifest, "spec") == b"Build the parser."
    with pytest.raises(ctxkit.NotFoundError):
        ctxkit.collect_result(parent, manifest)
    ctxkit.set_result(view, manifest, "parser done")
    assert parent.get(ctxkit.collect_result(parent, manifest)) == b"parser done"
    with pytest.raises(ctxkit.Error):
        view.get("spec", scope="agent:lead")     # only what the manifest names
