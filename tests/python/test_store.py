"""The store through Python: values, versions, refs, scopes, listing."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

import ctxkit


def test_set_get_accepts_str_and_bytes(view: ctxkit.View) -> None:
    ref = view.set("notes/a", "héllo")
    assert view.get("notes/a") == "héllo".encode()
    view.set("blob", b"\x00\xff\x01")
    assert view.get("blob") == b"\x00\xff\x01"
    assert ref.key == "notes/a" and ref.version == 1 and ref.is_static
    assert ref.size == len("héllo".encode())
    assert ref.type == "text"


def test_versions_static_and_dynamic_refs(view: ctxkit.View) -> None:
    first = view.set("k", "one")
    view.set("k", "two")
    assert view.get(first) == b"one"           # a static ref pins version 1
    assert view.get("k") == b"two"
    assert view.get("k", version=1) == b"one"
    dynamic = view.ref("k")
    assert dynamic.version == 0 and not dynamic.is_static
    assert view.get(dynamic) == b"two"
    assert first.dynamic() == dynamic.dynamic()
    assert [v.version for v in view.versions("k")] == [1, 2]
    view.remove("k")
    states = [v.state for v in view.versions("k")]
    assert states == ["present", "present", "deleted"]
    with pytest.raises(ctxkit.NotFoundError):
        view.get("k")
    assert view.get(first) == b"one"


def test_set_file_stores_the_file_as_copied(view: ctxkit.View,
                                            tmp_path: pathlib.Path) -> None:
    big = bytes(range(256)) * (3 << 12)  # 3 MiB: copied by the kernel.
    path = tmp_path / "big.bin"
    path.write_bytes(big)
    ref = view.set_file("big", path, tags=["input"])
    assert ref.size == len(big) and ref.version == 1
    path.write_bytes(b"changed afterwards")
    assert view.get("big") == big
    small = tmp_path / "small.txt"
    small.write_text("a small file")
    assert view.get(view.set_file("small", str(small))) == b"a small file"
    with pytest.raises(ctxkit.NotFoundError):
        view.set_file("gone", tmp_path / "absent")
    with pytest.raises(ctxkit.NotFoundError):
        view.get("gone")


def test_ref_wire_form_round_trips_with_the_cli(home: str, ctxkit_binary: str) -> None:
    out = subprocess.run([ctxkit_binary, "--home", home, "set", "doc"],
                         input=b"from the cli", capture_output=True, check=True)
    printed = out.stdout.decode().strip().split()[-1]
    ref = ctxkit.Ref(printed)
    assert str(ref) == printed
    assert ctxkit.Ref(str(ref)) == ref and hash(ctxkit.Ref(printed)) == hash(ref)
    view = ctxkit.Store(home).view()
    assert view.get(ref) == b"from the cli"
    assert view.resolve(printed) == b"from the cli"
    assert str(view.pin("doc")) == printed


def test_unknown_durability_is_refused_as_every_face_refuses_it(
        home: str) -> None:
    # The library's ParseDurability: the Node package says the same.
    with pytest.raises(ctxkit.InvalidArgumentError,
                       match="durability must be 'full' or 'process', "
                             "not 'sometimes'"):
        ctxkit.Store(home, durability="sometimes")


def test_bad_ref_text_is_invalid_argument() -> None:
    with pytest.raises(ctxkit.InvalidArgumentError) as e:
        ctxkit.Ref("ck:not-a-ref")
    assert isinstance(e.value, ValueError) and e.value.code == "invalid_argument"


def test_read_range_and_append(view: ctxkit.View) -> None:
    view.append("log", "line 1\n")
    ref = view.append("log", b"line 2\n")
    assert ref.version == 2 and ref.type == "stream"
    assert view.read_range("log", 7, 4) == b"line"
    assert view.read_range(ref, 0, 100) == b"line 1\nline 2\n"


def test_set_many_is_one_commit(view: ctxkit.View) -> None:
    refs = view.set_many([("a", "1"), ("b", b"2")], tags=["batch"])
    assert [r.key for r in refs] == ["a", "b"]
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.set_many([("c", "3"), ("bad\x00key", "4")])
    with pytest.raises(ctxkit.NotFoundError):
        view.get("c")                       # nothing of a failed batch lands


def test_compare_and_set(view: ctxkit.View) -> None:
    view.set("cas", "v1")
    view.set("cas", "v2", expected_version=1)
    with pytest.raises(ctxkit.FailedPreconditionError):
        view.set("cas", "v3", expected_version=1)
    assert view.get("cas") == b"v2"


def test_scopes_and_permissions(store: ctxkit.Store) -> None:
    mine = store.view(agent="a1", session="s1")
    other = store.view(agent="a2", session="s2")
    mine.set("private", "mine", scope="agent")
    assert mine.stat("private").scope == "agent:a1"
    with pytest.raises(ctxkit.NotFoundError):
        other.get("private")
    with pytest.raises(ctxkit.PermissionDeniedError) as e:
        other.get("private", scope="agent:a1")
    assert isinstance(e.value, PermissionError)
    ref = mine.pin("private")
    assert other.get(ref) == b"mine"        # a ref is a capability
    promoted = mine.promote("private")
    assert promoted.scope == "global" and other.get("private") == b"mine"


def test_list_with_filters_and_cursor(view: ctxkit.View) -> None:
    for i in range(5):
        view.set(f"docs/{i}", str(i), tags=["even"] if i % 2 == 0 else [])
    view.set("other", '{"x": 1}', type="json")
    page = view.list(key_prefix="docs/", limit=3)
    assert [o.key for o in page.items] == ["docs/0", "docs/1", "docs/2"]
    rest = view.list(key_prefix="docs/", limit=3, cursor=page.next_cursor)
    assert [o.key for o in rest.items] == ["docs/3", "docs/4"]
    assert rest.next_cursor == ""
    assert [o.key for o in view.list(tags=["even"]).items] == ["docs/0", "docs/2", "docs/4"]
    assert [o.key for o in view.list(type="json").items] == ["other"]
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.list(type="no-such-type")


def test_bad_input_is_rejected_and_changes_nothing(view: ctxkit.View) -> None:
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.set("", "empty key")
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.set("k", "v", type="nope")
    with pytest.raises(ctxkit.InvalidArgumentError):
        view.set("k", "v", tags=["t" * 65])
    with pytest.raises(TypeError):
        view.set("k", 42)                   # type: ignore[arg-type]
    assert view.list().items == []


def test_token_counts(view: ctxkit.View) -> None:
    assert ctxkit.count_tokens("hello world") == 2
    assert ctxkit.encode("hello world") == [24912, 2375]
    assert ctxkit.decode([24912, 2375]) == b"hello world"
    assert ctxkit.count_tokens("hello world", encoding="cl100k_base") == 2
    with pytest.raises(ctxkit.InvalidArgumentError):
        ctxkit.count_tokens("x", encoding="nope")
    view.set("t", "hello world")
    assert view.count_tokens("t") == 2


def test_store_reopens_and_stats(home: str) -> None:
    ctxkit.Store(home).view().set("persisted", "yes")
    store = ctxkit.Store(home, read_only=True)
    assert store.read_only and store.home == home
    assert store.view().get("persisted") == b"yes"
    with pytest.raises(ctxkit.Error):
        store.view().set("no", "writes")
    assert store.stats().live_objects == 1


def test_view_keeps_its_store_alive(home: str) -> None:
    view = ctxkit.Store(home).view(agent="x")
    import gc
    gc.collect()
    view.set("still", "works")
    assert view.get("still") == b"works"


def test_buffers_are_values_and_copied(view: ctxkit.View) -> None:
    buf = bytearray(b"from a bytearray")
    view.set("buf", buf)
    view.set("mv", memoryview(b"from a memoryview"))
    buf[:4] = b"XXXX"
    assert view.get("buf") == b"from a bytearray"
    assert view.get("mv") == b"from a memoryview"
    assert ctxkit.count_tokens(bytearray(b"hello world")) == 2


def test_text_fields_never_fail_on_bytes(view: ctxkit.View) -> None:
    view.set("accent", "é")
    assert view.peek("accent", 0, 1, unit="bytes").text == "\ufffd"
    view.set("binary", b"\xff\xfe line\n")
    assert view.search("line", keys=["binary"]).matches[0].preview.endswith(" line")


def test_refs_pickle_and_copy(view: ctxkit.View) -> None:
    import copy
    import pickle
    ref = view.set("p", "v")
    assert pickle.loads(pickle.dumps(ref)) == ref
    assert copy.deepcopy(ref) == ref


def test_keys_that_look_like_refs_stay_keys(view: ctxkit.View) -> None:
    view.set("ck:notes", "one line\n")
    assert view.summarize("ck:notes", summarizer="structural").tokens > 0
    assert view.chunk("ck:notes", 10).total_bytes == len("one line\n")


def test_store_url_selects_postgresql_and_hides_the_password(home: str) -> None:
    # Nothing listens on port 1: the PostgreSQL engine was chosen, it could
    # not connect, and its message does not show the password.
    url = "postgresql://alice:hunter2secret@127.0.0.1:1/db?connect_timeout=2"
    with pytest.raises(ctxkit.UnavailableError) as caught:
        ctxkit.Store(home, store_url=url)
    assert "hunter2secret" not in str(caught.value)
    assert "PostgreSQL" in str(caught.value)
