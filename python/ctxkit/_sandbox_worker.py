"""The SPEC-25 REPL's worker: runs model-written code inside the sandbox.

Started by ctxkit.repl (never imported by it) as `python3 -I -S worker.py
SCRATCH_BYTES SCRATCH_FILES` under bubblewrap, as process 1 of the
sandbox's PID namespace (so it also reaps what the code forks), with only
the standard library. It mounts its bounded /scratch and drops every
capability before anything else. It holds no store: each variable is a
proxy that asks the host for exactly the slice, search or length it needs
over the protocol pipes (its stdin and stdout, moved to private fds at
start so code that writes to fd 0/1 reaches /dev/null), where every
message is a 4-byte big-endian length and a JSON object.

Host -> worker: {"op": "init", "variables": [...]},
                {"op": "exec", "code": str},
                {"op": "reply", "value": ...} or {"op": "reply", "error": {...}}
Worker -> host: {"op": "call", "fn": str, "args": {...}}  (then waits for a reply)
                {"op": "done", "output": str, "error": str | None, "submitted": ...}
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import re
import signal
import struct
import sys
import traceback

_IN, _OUT = 0, 1

# Linux ABI constants for _mount_scratch (the same on every architecture).
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV = 2, 4
_PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
_CAP_LAST = 63  # Beyond the last capability any kernel defines (EINVAL there).


def _mount_scratch(size_bytes, max_files):
    """Mounts /scratch, the only writable place: a tmpfs of at most
    size_bytes and max_files inodes (empty files cost kernel memory too,
    and bubblewrap's --tmpfs bounds only bytes), in a mount namespace of
    the worker's own. Then drops every capability: bubblewrap granted
    CAP_SYS_ADMIN and CAP_SETPCAP (in the sandbox's user namespace) for
    this alone, and no code has run yet. Exits, saying why, on failure."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.unshare.argtypes = [ctypes.c_int]
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.c_ulong, ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    libc.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def check(result, what):
        if result != 0:
            errno = ctypes.get_errno()
            sys.exit(f"ctxkit sandbox: {what}: {os.strerror(errno)}")

    check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    options = f"size={int(size_bytes)},nr_inodes={int(max_files)},mode=0700"
    check(libc.mount(b"tmpfs", b"/scratch", b"tmpfs", _MS_NOSUID | _MS_NODEV,
                     options.encode()), "mount /scratch")
    os.chdir("/scratch")
    for cap in range(_CAP_LAST + 1):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
            check(-1, f"PR_CAPBSET_DROP {cap}")
    check(libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0),
          "PR_CAP_AMBIENT_CLEAR_ALL")
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # Effective, permitted, inheritable: none.
    check(libc.capset(header, data), "capset")
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        if int(fields[name], 16) != 0:
            sys.exit(f"ctxkit sandbox: {name} is {fields[name].strip()} after dropping")
    if fields["NoNewPrivs"].strip() != "1":
        sys.exit("ctxkit sandbox: no_new_privs is not set")


def _claim_pipes():
    global _IN, _OUT
    _IN, _OUT = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _read_exact(n):
    data = bytearray(n)
    got = 0
    while got < n:
        chunk = os.read(_IN, min(n - got, 1 << 20))
        if not chunk:
            raise SystemExit(0)  # The host closed the pipe: stop.
        data[got:got + len(chunk)] = chunk
        got += len(chunk)
    return bytes(data)


def _recv():
    (size,) = struct.unpack(">I", _read_exact(4))
    return json.loads(_read_exact(size))


_PID = os.getpid()


def _send(message):
    if os.getpid() != _PID:
        os._exit(0)  # A process the code forked never speaks the protocol.
    data = json.dumps(message).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        data = data[os.write(_OUT, data):]


class HelperError(Exception):
    """A helper call the host refused (bad arguments, missing data)."""


def _call(fn, **args):
    _send({"op": "call", "fn": fn, "args": args})
    reply = _recv()
    if "error" in reply:
        raise HelperError(f"{fn}: {reply['error']['message']}")
    return reply["value"]


class Deferred:
    """A deferred operation (SPEC-25): summarize() and find_relevant()
    return one at once; the orchestrator resolves it. result() waits."""

    def __init__(self, op_id, what):
        self.id = op_id
        self._what = what
        self._value = None
        self._done = False

    def result(self):
        if not self._done:
            self._value = _call("resolve", id=self.id)
            self._done = True
        return self._value

    def __str__(self):
        return str(self.result())

    def __repr__(self):
        state = "resolved" if self._done else "pending"
        return f"<Deferred {self._what} ({state})>"


class Var:
    """A context variable: holds a ref, not a copy. len(), slicing,
    iteration and searches read only what they need; str(var) loads it
    whole (explicitly)."""

    def __init__(self, meta):
        self._meta = meta
        self.name = meta["name"]
        self.ref = meta["ref"]
        self.summary = meta["summary"]
        self.shape = meta["shape"]
        self.type = meta["type"]
        self.size_bytes = meta["size_bytes"]
        self.tokens = meta["tokens"]
        self._keys = None
        self._len = meta.get("item_count") if self.shape != "str" else None

    def __repr__(self):
        return (f"<Var {self.name}: {self.shape} of {len(self)} | "
                f"{self.size_bytes} bytes | {self.summary[:120]}>")

    def __len__(self):
        if self._len is None:
            self._len = _call("len", name=self.name)
        return self._len

    def _slice(self, start, end):
        return _call("peek", name=self.name, start=start, end=end)

    def keys(self):
        if self.shape != "dict":
            raise TypeError(f"{self.name} is a {self.shape}, not a dict")
        if self._keys is None:
            self._keys = _call("keys", name=self.name)
        return list(self._keys)

    def values(self):
        return [v for _, v in self.items()]

    def items(self):
        return list(self._slice(0, None).items())

    def __getitem__(self, index):
        if isinstance(index, slice):
            if index.step not in (None, 1):
                raise ValueError("variables slice with step 1 only")
            start, end = index.start or 0, index.stop
            return self._slice(start, end)
        if self.shape == "dict" and isinstance(index, str):
            keys = self.keys()
            if index not in keys:
                raise KeyError(index)
            i = keys.index(index)
            return self._slice(i, i + 1)[index]
        if self.shape == "dict":
            raise TypeError(f"{self.name} is a dict: index it by key, slice it by position")
        if not isinstance(index, int):
            raise TypeError(f"{self.name} indices are integers or slices")
        n = len(self)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"{self.name} index {index} out of range")
        got = self._slice(i, i + 1)
        return got[0] if self.shape == "list" else got

    def __iter__(self):
        if self.shape == "dict":
            yield from self.keys()
            return
        n, step = len(self), 64
        for start in range(0, n, step):
            got = self._slice(start, min(n, start + step))
            if self.shape == "list":
                yield from got
            else:
                yield from got.splitlines()

    def __contains__(self, item):
        if self.shape == "dict":
            return item in self.keys()
        return any(item == x for x in self)

    def __str__(self):
        return _call("load", name=self.name)


def peek(var, start=0, end=10):
    """A slice: list items, dict entries or (for text) lines [start, end)."""
    if isinstance(var, Var):
        return var[start:end]
    if isinstance(var, list):
        return var[start:end]
    if isinstance(var, dict):
        keys = list(var.keys())[start:end]
        return {k: var[k] for k in keys}
    if isinstance(var, str):
        return var[start:end]
    raise TypeError(f"Cannot peek into {type(var)}")


class Matches(list):
    """What search() returns: the matches (a list), with .total, how many
    there are (.more: more than .total, which is then where counting
    stopped). Printed, it says when it holds fewer than there are."""

    def __init__(self, matches, total, more=False):
        super().__init__(matches)
        self.total = total
        self.more = more

    def __repr__(self):
        text = list.__repr__(self)
        if self.total > len(self) or self.more:
            count = f"more than {self.total:,}" if self.more else f"{self.total:,}"
            text += (f"  # {len(self)} of {count} matches; "
                     "search(var, pattern, max_results=N) returns up to N")
        return text

    __str__ = __repr__


def search(var, pattern, regex=False, max_results=10):
    """Matches as [{"index" or "key": ..., "preview": ...}], at most
    max_results (a Matches list: .total says how many there are); regex
    uses RE2 syntax on variables, Python's re otherwise."""
    if isinstance(var, Var):
        found = _call("search", name=var.name, pattern=pattern, regex=bool(regex),
                      max_results=int(max_results))
        return Matches(found["matches"], found["total"], found["more"])
    if regex:
        pat = re.compile(pattern)
        match = lambda s: pat.search(s) is not None  # noqa: E731
    else:
        match = lambda s: pattern in s  # noqa: E731
    results = []
    if isinstance(var, dict):
        for key, value in var.items():
            if match(str(value)):
                results.append({"key": key, "preview": str(value)[:200]})
    elif isinstance(var, list):
        for i, item in enumerate(var):
            if match(str(item)):
                results.append({"index": i, "preview": str(item)[:200]})
    elif isinstance(var, str):
        for i, line in enumerate(var.splitlines()):
            if match(line):
                results.append({"index": i, "preview": line[:200]})
    else:
        raise TypeError(f"Cannot search {type(var)}")
    return Matches(results[:max_results], len(results))


def summarize(var, max_tokens=500):
    """A Deferred summary of at most max_tokens tokens."""
    if isinstance(var, Var):
        op = _call("summarize", name=var.name, max_tokens=int(max_tokens))
    else:
        op = _call("summarize_text", text=str(var), max_tokens=int(max_tokens))
    return Deferred(op, f"summarize({getattr(var, 'name', type(var).__name__)})")


def find_relevant(var, query, top_k=5):
    """A Deferred list of the top_k passages of var most relevant to query:
    [{"index" or "key", "preview", "score", "ref"}]."""
    if not isinstance(var, Var):
        raise TypeError("find_relevant() takes a context variable")
    op = _call("find_relevant", name=var.name, query=str(query), top_k=int(top_k))
    return Deferred(op, f"find_relevant({var.name})")


def llm_query(prompt):
    """A sub-call to the language model: the answer to prompt (a str).
    Put the context it needs into the prompt (a chunk, a slice)."""
    return _call("llm_query", prompts=[str(prompt)])[0]


def llm_query_batched(prompts):
    """Several sub-calls at once, run concurrently: a list of answers in
    the order of prompts."""
    return _call("llm_query", prompts=[str(p) for p in prompts])


class _Submitted(BaseException):
    """Raised by SUBMIT to end the step (not an Exception: code cannot
    swallow it with `except Exception`)."""


def SUBMIT(outputs):  # noqa: N802 (the spec's name)
    """Ends the run with outputs (a JSON-serializable dict)."""
    if not isinstance(outputs, dict):
        raise TypeError("SUBMIT takes a dict of outputs")
    try:
        json.dumps(outputs)
    except (TypeError, ValueError) as e:
        raise TypeError(f"SUBMIT outputs must be JSON-serializable: {e}") from None
    raise _Submitted(outputs)


def _namespace(variables):
    ns = {"__name__": "__repl__", "__builtins__": builtins}
    ns.update(json=json, re=re, peek=peek, search=search, summarize=summarize,
              find_relevant=find_relevant, SUBMIT=SUBMIT, Deferred=Deferred,
              llm_query=llm_query, llm_query_batched=llm_query_batched)
    for meta in variables:
        ns[meta["name"]] = Var(meta)
    return ns


def _cut(text, limit):
    """Head + tail within limit characters (the host states the cut), so a
    huge print never becomes a huge message."""
    if len(text) <= limit:
        return text
    head = limit // 2
    return text[:head] + text[len(text) - (limit - head):]


def _run(code, ns, output_chars):
    out = io.StringIO()
    error = submitted = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            exec(compile(code, "<step>", "exec"), ns)  # noqa: S102 (sandboxed)
        except _Submitted as s:
            submitted = s.args[0]
        except MemoryError:
            error = "MemoryError: the step went over the sandbox's memory limit"
        except BaseException as e:  # noqa: BLE001 (report everything)
            tb = traceback.extract_tb(e.__traceback__)
            frames = [f for f in tb if f.filename == "<step>"]
            where = f" (line {frames[-1].lineno})" if frames else ""
            error = "".join(traceback.format_exception_only(type(e), e)).strip() + where
    if os.getpid() != _PID:
        os._exit(0)  # A forked child of the code ends here, silently.
    output = out.getvalue()
    return {"op": "done", "output": _cut(output, output_chars), "output_chars": len(output),
            "error": error, "submitted": submitted}


def _reap():
    """Kills every other process the step left behind (the sandbox has its
    own PID namespace, whose process 1 this is; kill(-1) spares the caller)
    and collects them."""
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break


def main():
    _claim_pipes()
    ns, output_chars = None, 8000
    while True:
        message = _recv()
        if message["op"] == "init":
            ns = _namespace(message["variables"])
            output_chars = int(message.get("output_chars", output_chars))
            _send({"op": "ready", "pid": os.getpid()})
        elif message["op"] == "exec":
            result = _run(message["code"], ns, output_chars)
            _reap()
            _send(result)


if __name__ == "__main__":
    _mount_scratch(int(sys.argv[1]), int(sys.argv[2]))
    sys.setrecursionlimit(5000)
    main()
