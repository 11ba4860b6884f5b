"""A call with an argument of the wrong type raises a one-line TypeError
that names the parameter, not pybind11's list of overloads; calls that are
right, and TypeErrors the calls raise themselves, are untouched."""

from __future__ import annotations

import pytest

import ctxkit


def one_line_type_error(call, *args, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError) as raised:
        call(*args, **kwargs)
    text = str(raised.value)
    assert "\n" not in text, text
    assert "incompatible function arguments" not in text, text
    return text


def test_a_wrong_type_names_the_parameter(store: ctxkit.Store,
                                          view: ctxkit.View) -> None:
    view.set("k", "v")
    assert (one_line_type_error(view.peek, "k", "0", 2)
            == "View.peek(): start must be int, not str")
    assert (one_line_type_error(view.find_relevant, "noon", widen="no")
            == "View.find_relevant(): widen must be bool, not str")
    assert (one_line_type_error(store.view, agent=1)
            == "Store.view(): agent must be str, not int")
    assert (one_line_type_error(ctxkit.count_tokens, "x", encoding=5)
            == "count_tokens(): encoding must be str, not int")
    assert (one_line_type_error(ctxkit.load_manifest, 5)
            == "load_manifest(): path must be str, not int")
    assert (one_line_type_error(ctxkit.Session.create, store, 5)
            == "Session.create(): id must be str, not int")
    assert (one_line_type_error(ctxkit.Store, read_only="yes")
            == "Store(): read_only must be bool, not str")


def test_wrong_arity_and_keywords_are_one_line(view: ctxkit.View) -> None:
    assert (one_line_type_error(view.stat, "k", nope=1)
            == "View.stat(): got an unexpected keyword argument 'nope'")
    assert "missing argument 'key'" in one_line_type_error(view.set)


def test_right_calls_and_the_calls_own_type_errors_pass(
        store: ctxkit.Store, view: ctxkit.View) -> None:
    ref = view.set("k", "v")
    assert view.get(ref) == b"v"
    assert ctxkit.count_tokens("hello world") == 2
    session = ctxkit.Session.create(store, "s")
    assert session.snapshot().chat_messages == 0
    # A TypeError the binding raises about a value's content stays as is.
    with pytest.raises(TypeError) as raised:
        session.ingest([{"role": "user", "content": object()}])
    assert "View" not in str(raised.value)
