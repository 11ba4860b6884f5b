"""The SPEC-25 REPL: model-written Python over context variables, sandboxed.

    ctx = ctxkit.ExternalizedContext.from_session(view, "run-7", "Why did the deploy fail?")
    with ctxkit.repl.Repl(view, ctx) as repl:
        step = repl.step('print(len(conversation)); print(peek(conversation, 0, 2))')
        step.output, step.error, step.submitted

Each step's code runs in a separate process (ctxkit/_sandbox_worker.py)
under bubblewrap, started from an empty environment, as process 1 of its
own PID namespace: nothing of this process (environment, argv,
descriptors) is readable there. It has no network but a loopback of its
own, a read-only /usr and no other host file, no capability, no user
namespace, and a seccomp filter refusing SysV shared memory, message
queues and memfds; the one writable place is /scratch, a tmpfs bounded in
bytes and files (SandboxLimits.scratch_bytes, scratch_files). Memory,
CPU, process-count and file-size limits hold per process, and a
wall-time limit per step. Variables there are proxies holding a ref:
every slice, search or length is a call back to this process, which
reads only what it needs through the View. What the sandbox protects,
as tests/python/test_sandbox.py checks it, and what it does not, is in
docs/python.md and docs/security.md.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import os
import pathlib
import select
import shutil
import signal
import struct
import subprocess
import threading
import time
from typing import Any, Callable, Optional

from ctxkit import _ctxkit
from ctxkit._errors import (
    Error,
    FailedPreconditionError,
    InvalidArgumentError,
    ResourceExhaustedError,
    UnavailableError,
)

_WORKER = pathlib.Path(__file__).with_name("_sandbox_worker.py")
_NOBODY = 65534
_MAX_MESSAGE = 16 << 20  # Of a message from the sandbox.
_COUNT_MATCHES = 100_000  # search() counts the matches it does not return up to this.
_STDERR_TAIL = 4096      # Bytes of the sandbox's stderr kept for errors.


@dataclasses.dataclass(frozen=True)
class SandboxLimits:
    """Limits of the sandbox process (and of each step)."""

    memory_bytes: int = 1 << 30      # RLIMIT_AS of the sandbox.
    step_seconds: float = 30.0       # Wall time of one step.
    cpu_seconds: int = 600           # RLIMIT_CPU over the sandbox's life.
    processes: int = 16              # Processes the sandbox may run at once.
    file_bytes: int = 64 << 20       # RLIMIT_FSIZE: largest file it may write.
    open_files: int = 64             # RLIMIT_NOFILE.
    output_chars: int = 8000         # A step's output beyond this is cut head+tail.
    scratch_bytes: int = 64 << 20    # Size of /scratch, a tmpfs (RAM).
    scratch_files: int = 4096        # Files and directories /scratch may hold.

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            kinds = (int, float) if field.name == "step_seconds" else (int,)
            if (isinstance(value, bool) or not isinstance(value, kinds)
                    or not 0 < value < float("inf")):
                kind = "number" if len(kinds) > 1 else "int"
                raise InvalidArgumentError(
                    f"SandboxLimits.{field.name} must be a positive {kind}, not {value!r}")


@dataclasses.dataclass
class StepResult:
    """What one step did. `output` is what the code printed, cut to
    SandboxLimits.output_chars (head and tail, the cut stated inline)."""

    output: str
    output_chars: int                 # Before truncation.
    truncated: bool
    error: Optional[str]              # The exception, one line; None if none.
    submitted: Optional[dict]         # SUBMIT's outputs, when it was called.
    restarted: bool                   # The sandbox was restarted: names are gone.
    elapsed_seconds: float
    helper_calls: int
    deferred: dict[int, Any]          # Deferred operations resolved after the step.


def truncate_output(text: str, limit: int) -> tuple[str, bool]:
    """Head + tail of text within limit characters, stating what was cut."""
    if len(text) <= limit:
        return text, False
    head = limit // 2
    tail = limit - head
    cut = len(text) - head - tail
    return (f"{text[:head]}\n[... {cut} characters truncated ...]\n"
            f"{text[len(text) - tail:]}"), True


class _WorkerGone(Exception):
    """The sandbox died, timed out or broke the protocol."""


def _bwrap() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise FailedPreconditionError(
            "the REPL sandbox needs bubblewrap (apt-get install bubblewrap)")
    return path


# System calls the sandbox may not make, by architecture: each makes memory
# that no limit counts (SysV shared memory and message queues outlive the
# process that made them, as long as the sandbox's IPC namespace; a memfd
# is RAM outside RLIMIT_AS).
# (audit arch, 64-bit ABI's bit that marks x32 or 0, {name: number})
_DENIED_CALLS = {
    "x86_64": (0xC000003E, 0x40000000,
               {"shmget": 29, "msgget": 68, "memfd_create": 319, "memfd_secret": 447}),
    "aarch64": (0xC00000B7, 0,
                {"shmget": 194, "msgget": 186, "memfd_create": 279, "memfd_secret": 447}),
    "riscv64": (0xC00000F3, 0,
                {"shmget": 194, "msgget": 186, "memfd_create": 279, "memfd_secret": 447}),
}


def _seccomp_filter() -> bytes:
    """The classic BPF program bwrap installs (--seccomp): _DENIED_CALLS
    fail with EPERM; so does every call of another ABI (i386 through int
    0x80, x32), whose numbers differ; everything else is allowed."""
    machine = os.uname().machine
    if machine not in _DENIED_CALLS or struct.calcsize("P") != 8:
        raise FailedPreconditionError(
            f"the REPL sandbox's seccomp filter knows {', '.join(_DENIED_CALLS)} "
            f"(64-bit), not {machine} ({8 * struct.calcsize('P')}-bit Python)")
    arch, abi_bit, calls = _DENIED_CALLS[machine]
    ld_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06   # BPF_LD|W|ABS, JMP|JEQ|K, ...
    allow, deny = 0x7FFF0000, 0x00050000 | 1          # SECCOMP_RET_ALLOW, _ERRNO(EPERM)
    checks = [(jge, abi_bit)] if abi_bit else []
    checks += [(jeq, number) for number in calls.values()]
    # seccomp_data: nr at offset 0, arch at 4. Jumps count the instructions
    # skipped; "deny" is the last one.
    program = [(ld_abs, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, deny), (ld_abs, 0, 0, 0)]
    for i, (op, k) in enumerate(checks):
        program.append((op, len(checks) - i, 0, k))
    program += [(ret, 0, 0, allow), (ret, 0, 0, deny)]
    return b"".join(struct.pack("=HBBI", *insn) for insn in program)


def _memfd(name: str, data: bytes) -> int:
    """A descriptor holding data, read from its start (for bwrap)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _uid_tasks(uid: int) -> int:
    """Tasks (threads) whose real uid is `uid`: what RLIMIT_NPROC counts."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"])
        except (OSError, KeyError, ValueError):
            pass
    return count


# The sandbox is started from one long-lived thread: bubblewrap's
# --die-with-parent (PR_SET_PDEATHSIG) follows the thread that forked it, so
# a sandbox made from a short-lived thread would die with that thread.
_SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                 thread_name_prefix="ctxkit-sandbox")


class _Sandbox:
    """One bubblewrap'd worker process and its protocol pipes."""

    def __init__(self, limits: SandboxLimits) -> None:
        self.limits = limits
        self.process: Optional[subprocess.Popen] = None
        self._stderr: Optional[threading.Thread] = None
        self._stderr_tail = b""

    def _argv(self, worker_fd: int, seccomp_fd: int, uid: int) -> list[str]:
        limits = self.limits
        prlimit = shutil.which("prlimit")
        if not prlimit:
            raise FailedPreconditionError("the REPL sandbox needs prlimit (util-linux)")
        # RLIMIT_NPROC counts every task of the uid: what it runs now plus
        # the sandbox's allowance.
        nproc = limits.processes + _uid_tasks(uid)
        # bwrap is started from an empty environment and runs the worker as
        # the PID namespace's process 1 (--as-pid-1): no copy of bwrap, its
        # environment, argv or descriptors is left inside to be read
        # through /proc. The worker script is copied in from a descriptor
        # (--ro-bind-data), so no host path is bound either.
        argv = [
            os.path.realpath(prlimit), f"--as={limits.memory_bytes}",
            f"--cpu={limits.cpu_seconds}", f"--nproc={nproc}",
            f"--fsize={limits.file_bytes}", f"--nofile={limits.open_files}", "--",
            # No user namespace inside (one would give the code every
            # capability there, enough to mount a tmpfs without bound).
            os.path.realpath(_bwrap()), "--unshare-all", "--unshare-user",
            "--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1",
            "--hostname", "sandbox",  # Not the host's name.
            # The worker mounts /scratch with these two, then drops them.
            "--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP",
            "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/scratch",
            "--setenv", "TMPDIR", "/scratch", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
            "--ro-bind", "/usr", "/usr",
        ]
        for top in ("/bin", "/lib", "/lib64", "/sbin"):
            if os.path.islink(top):
                argv += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                argv += ["--ro-bind", top, top]
        return argv + [
            "--seccomp", str(seccomp_fd),
            "--perms", "0444", "--ro-bind-data", str(worker_fd), "/ctxkit/worker.py",
            # /dev (and /dev/shm in it) read-only, like the root: the
            # worker's bounded /scratch is the one place it can write.
            "--dir", "/scratch", "--chdir", "/scratch", "--proc", "/proc",
            "--dev", "/dev", "--remount-ro", "/dev", "--remount-ro", "/",
            "/usr/bin/python3", "-I", "-S", "/ctxkit/worker.py",
            str(limits.scratch_bytes), str(limits.scratch_files)]

    def start(self, variables: list[dict]) -> None:
        """Starts the worker; FailedPreconditionError (and nothing left
        running) when it cannot."""
        as_root = os.geteuid() == 0
        uid = _NOBODY if as_root else os.geteuid()
        seccomp_fd = _memfd("ctxkit-seccomp", _seccomp_filter())
        try:
            worker_fd = _memfd("ctxkit-worker", _WORKER.read_bytes())
        except BaseException:
            os.close(seccomp_fd)
            raise
        try:
            argv = self._argv(worker_fd, seccomp_fd, uid)
            # Only the protocol's pipes, stderr, the worker's source and the
            # seccomp filter reach bwrap; nothing of the harness's environment.
            self.process = _SPAWNER.submit(
                subprocess.Popen, argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0, env={}, cwd="/", close_fds=True,
                pass_fds=(worker_fd, seccomp_fd), start_new_session=True,
                user=uid if as_root else None, group=_NOBODY if as_root else None,
                extra_groups=[] if as_root else None).result()
        finally:
            os.close(worker_fd)
            os.close(seccomp_fd)
        self._stderr_tail = b""
        self._stderr = threading.Thread(target=self._drain_stderr,
                                        args=(self.process.stderr,), daemon=True,
                                        name="ctxkit-sandbox-stderr")
        self._stderr.start()
        try:
            self.send({"op": "init", "variables": variables,
                       "output_chars": self.limits.output_chars},
                      time.monotonic() + 30)
            reply = self.recv(time.monotonic() + 30)
            if reply.get("op") != "ready":
                raise _WorkerGone("no ready message")
        except (_WorkerGone, TimeoutError) as e:
            self.stop()
            raise FailedPreconditionError(
                f"the REPL sandbox did not start ({e or 'timeout'}): "
                f"{self.stderr_tail()}") from None

    def _drain_stderr(self, pipe: Any) -> None:
        """Reads the sandbox's stderr until every writer is gone, keeping
        the tail (bubblewrap's and Python's messages when the worker cannot
        start); the pipe is this thread's to close."""
        with pipe:
            while True:
                try:
                    chunk = os.read(pipe.fileno(), 1 << 16)
                except OSError:
                    return
                if not chunk:
                    return
                self._stderr_tail = (self._stderr_tail + chunk)[-_STDERR_TAIL:]

    def stderr_tail(self) -> str:
        return self._stderr_tail.decode(errors="replace")[-2000:].strip()

    def send(self, message: dict, deadline: float) -> None:
        """Writes one message within the deadline (the worker may not read)."""
        assert self.process and self.process.stdin
        data = memoryview(self._frame(message))
        fd = self.process.stdin.fileno()
        os.set_blocking(fd, False)
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                raise TimeoutError
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except OSError as e:
                raise _WorkerGone(f"the sandbox exited ({e.strerror})") from None

    @staticmethod
    def _frame(message: dict) -> bytes:
        data = json.dumps(message).encode()
        return struct.pack(">I", len(data)) + data

    def _read(self, n: int, deadline: float) -> bytes:
        assert self.process and self.process.stdout
        fd = self.process.stdout.fileno()
        data = bytearray(n)
        got = 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise _WorkerGone(self._exit_reason())
            data[got:got + len(chunk)] = chunk
            got += len(chunk)
        return bytes(data)

    def recv(self, deadline: float) -> dict:
        (size,) = struct.unpack(">I", self._read(4, deadline))
        if size > _MAX_MESSAGE:
            raise _WorkerGone("the sandbox sent an oversized message")
        try:
            message = json.loads(self._read(size, deadline))
        except (ValueError, RecursionError):
            raise _WorkerGone("the sandbox sent a malformed message") from None
        if not isinstance(message, dict):
            raise _WorkerGone("the sandbox sent a malformed message")
        return message

    def _exit_reason(self) -> str:
        assert self.process
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the sandbox closed its pipe"
        # bubblewrap reports a child killed by signal N as status 128 + N.
        number = -code if code < 0 else code - 128 if code > 128 else 0
        if number:
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            extra = " (CPU time limit)" if number == signal.SIGXCPU else ""
            return f"the sandbox was killed by {name}{extra}"
        return f"the sandbox exited with status {code}"

    def stop(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.process.wait()
            if self._stderr is not None:
                # Every writer is gone once the sandbox's process 1 is.
                self._stderr.join(timeout=5)
                self._stderr = None
            for pipe in (self.process.stdin, self.process.stdout):
                try:
                    if pipe:
                        pipe.close()
                except OSError:
                    pass
        self.process = None

    def close(self) -> None:
        self.stop()


class Repl:
    """A SPEC-25 REPL over `context`'s variables, read through `view`.

    step(code) runs code in the sandbox and returns a StepResult. Names the
    code defines, and files it writes in /scratch, persist from step to
    step until the sandbox is restarted (after a timeout or a crash, which
    the step reports). summarize() and
    find_relevant() in the code return Deferred operations, resolved after
    each step within what is left of its time (StepResult.deferred) or on
    demand with .result(); at most `max_pending` run at once. `llm` and
    `embeddings` are passed to summaries and find_relevant; without them
    summaries are structural and ranking is BM25. `llm_query`, when given,
    answers the code's llm_query()/llm_query_batched() sub-calls: it takes
    a list of prompts and returns their answers (ctxkit.rlm passes one);
    without it those calls fail with a clear error.

    A Repl is used from one thread at a time.
    """

    max_pending = 32

    def __init__(self, view: _ctxkit.View, context: _ctxkit.ExternalizedContext, *,
                 limits: SandboxLimits = SandboxLimits(),
                 llm: Optional[_ctxkit.LlmEndpoint] = None,
                 embeddings: Optional[_ctxkit.EmbeddingsConfig] = None,
                 llm_query: Optional[Callable[[list[str]], list[str]]] = None) -> None:
        self.view = view
        self.context = context
        self.limits = limits
        self.llm = llm
        self.embeddings = embeddings
        self.llm_query = llm_query
        self._variables = {v.name: v for v in context.variables}
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)
        self._deferred: dict[int, concurrent.futures.Future] = {}
        self._reported: set[int] = set()
        self._texts = 0
        self._deadline = 0.0
        self._sandbox = _Sandbox(limits)
        try:
            self._sandbox.start(self._variable_list())
        except BaseException:
            self.close()
            raise

    # -- lifecycle --------------------------------------------------------
    def close(self) -> None:
        self._sandbox.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> "Repl":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _variable_list(self) -> list[dict]:
        return [{"name": v.name, "ref": str(v.ref), "summary": v.summary, "shape": v.shape,
                 "type": v.type, "size_bytes": v.size_bytes, "tokens": v.tokens,
                 "item_count": v.item_count} for v in self._variables.values()]

    # -- one step ---------------------------------------------------------
    def step(self, code: str) -> StepResult:
        """Runs code in the sandbox. Never raises for what the code does;
        FailedPreconditionError only when no sandbox can be started."""
        if not isinstance(code, str):
            raise TypeError("code must be a str")
        if self._sandbox.process is None:
            self._sandbox.start(self._variable_list())
        start = time.monotonic()
        self._deadline = start + self.limits.step_seconds
        calls = 0
        try:
            self._sandbox.send({"op": "exec", "code": code}, self._deadline)
            while True:
                message = self._sandbox.recv(self._deadline)
                if message.get("op") == "done":
                    break
                if message.get("op") != "call":
                    raise _WorkerGone("the sandbox sent an unknown message")
                calls += 1
                self._sandbox.send(self._serve(message), self._deadline)
        except TimeoutError:
            return self._restart(start, calls, f"TimeoutError: the step ran over "
                                 f"{self.limits.step_seconds:g} s")
        except _WorkerGone as gone:
            return self._restart(start, calls, f"SandboxError: {gone}")
        output = message.get("output")
        output = output if isinstance(output, str) else ""
        chars = message.get("output_chars")
        chars = chars if isinstance(chars, int) and chars >= len(output) else len(output)
        if chars > len(output):  # The worker kept the head and tail.
            head = min(len(output), self.limits.output_chars // 2)
            text, cut = (f"{output[:head]}\n[... {chars - len(output)} characters "
                         f"truncated ...]\n{output[head:]}"), True
        else:
            text, cut = truncate_output(output, self.limits.output_chars)
        error = message.get("error")
        submitted = message.get("submitted")
        return StepResult(output=text, output_chars=chars, truncated=cut,
                          error=error if isinstance(error, str) else None,
                          submitted=submitted if isinstance(submitted, dict) else None,
                          restarted=False, elapsed_seconds=time.monotonic() - start,
                          helper_calls=calls, deferred=self._resolve_all())

    def _restart(self, start: float, calls: int, reason: str) -> StepResult:
        self._sandbox.stop()
        try:
            self._sandbox.start(self._variable_list())
            note = ("the sandbox was restarted (names defined by earlier steps and "
                    "files in /scratch are gone)")
        except FailedPreconditionError as e:
            note = f"the sandbox could not be restarted: {e}"
        return StepResult(output="", output_chars=0, truncated=False,
                          error=f"{reason}; {note}", submitted=None, restarted=True,
                          elapsed_seconds=time.monotonic() - start, helper_calls=calls,
                          deferred={})

    # -- helper calls from the sandbox --------------------------------------
    def _serve(self, message: dict) -> dict:
        fn = message.get("fn")
        args = message.get("args")
        handler = getattr(self, f"_call_{fn}", None) if isinstance(fn, str) else None
        if handler is None or not isinstance(args, dict):
            return {"op": "reply", "error": {"code": "invalid_argument",
                                             "message": f"no helper call {fn!r}"}}
        try:
            return {"op": "reply", "value": handler(**args)}
        except Error as e:
            return {"op": "reply", "error": {"code": e.code, "message": str(e)}}
        except (TypeError, ValueError, KeyError, ArithmeticError) as e:
            return {"op": "reply", "error": {"code": "invalid_argument", "message": str(e)}}
        except Exception as e:  # noqa: BLE001 (the code must see every failure)
            return {"op": "reply", "error": {"code": "internal",
                                             "message": f"{type(e).__name__}: {e}"}}

    def _variable(self, name: str) -> _ctxkit.ContextVariable:
        if not isinstance(name, str) or name not in self._variables:
            raise InvalidArgumentError(f"no variable {name!r}")
        return self._variables[name]

    @staticmethod
    def _index(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidArgumentError(f"an index must be an int, not {value!r}")
        return value

    def _call_len(self, name: str) -> int:
        var = self._variable(name)
        if var.shape != "str":
            return int(self.context.len(name).items or 0)
        return int(self.view.len(var.ref, count=True).lines or 0)

    @staticmethod
    def _item(var: _ctxkit.ContextVariable, text: str) -> Any:
        # The conversation's items and a custom JSON collection's items are
        # JSON; the members of files/tool_outputs/working_memory are content.
        if var.type == "conversation" or var.type == "custom":
            try:
                return json.loads(text)
            except ValueError:
                return text
        return text

    def _call_peek(self, name: str, start: int, end: Optional[int]) -> Any:
        var = self._variable(name)
        start = self._index(start)
        end = None if end is None else self._index(end)
        unit = "lines" if var.shape == "str" else "auto"
        got = self.context.peek(self.view, name, start, end, unit=unit,
                                max_bytes=_MAX_MESSAGE // 2)
        if var.shape == "str":
            return got.text
        if var.shape == "dict":
            return {item.key: self._item(var, item.text) for item in got.items}
        return [self._item(var, item.text) for item in got.items]

    def _call_keys(self, name: str) -> list[str]:
        var = self._variable(name)
        if var.members:
            return [m.name for m in var.members]
        keys = []
        for start in range(0, int(var.item_count or 0), 1024):
            got = self.context.peek(self.view, name, start, start + 1024,
                                    max_bytes=_MAX_MESSAGE // 2)
            keys += [item.key for item in got.items]
        return keys

    def _call_load(self, name: str) -> str:
        var = self._variable(name)
        if var.size_bytes > _MAX_MESSAGE // 2:
            raise InvalidArgumentError(
                f"{name} is {var.size_bytes} bytes; read it in slices (peek, var[a:b])")
        if var.shape == "str":
            return self.view.get(var.ref).decode("utf-8", errors="replace")
        return str(self._call_peek(name, 0, None))

    def _call_search(self, name: str, pattern: str, regex: bool, max_results: int) -> dict:
        var = self._variable(name)
        found = self.context.search(self.view, name, str(pattern), regex=bool(regex),
                                    max_results=self._index(max_results))
        # When max_results stopped it, how many there are: counted up to
        # _COUNT_MATCHES (then "more than that"), with the smallest previews.
        total, more = len(found.matches), False
        if found.truncated:
            counted = self.context.search(self.view, name, str(pattern), regex=bool(regex),
                                          max_results=_COUNT_MATCHES, preview_bytes=16)
            total, more = len(counted.matches), counted.truncated
        results = []
        for m in found.matches:
            if var.shape == "dict":
                results.append({"key": m.key, "preview": m.preview})
            elif var.shape == "list":
                results.append({"index": m.index, "preview": m.preview})
            else:
                results.append({"index": m.line - 1, "preview": m.preview})
        return {"matches": results, "total": total, "more": more}

    def _defer(self, run: Callable[[], Any]) -> int:
        pending = sum(1 for f in self._deferred.values() if not f.done())
        if pending >= self.max_pending:
            raise ResourceExhaustedError(
                f"{pending} deferred operations are still running (at most {self.max_pending})")
        op = len(self._deferred) + 1
        self._deferred[op] = self._pool.submit(run)
        return op

    def _call_summarize(self, name: str, max_tokens: int) -> int:
        self._variable(name)
        pending = self.context.summarize(self.view, name, self._index(max_tokens), llm=self.llm)
        return self._defer(lambda: pending.result().text)

    def _call_summarize_text(self, text: str, max_tokens: int) -> int:
        if not isinstance(text, str) or len(text) > _MAX_MESSAGE:
            raise InvalidArgumentError("summarize takes text of at most 16 MiB")
        max_tokens = self._index(max_tokens)
        self._texts += 1
        key = f"ctxkit.repl/text/{self._texts}"
        ref = self.view.set(key, text, persist=False)   # This process only.

        def summary() -> str:
            try:
                return self.view.summarize(ref, max_tokens, llm=self.llm).text
            finally:
                self.view.remove(key)

        return self._defer(summary)

    def _call_find_relevant(self, name: str, query: str, top_k: int) -> int:
        var = self._variable(name)
        top_k = self._index(top_k)

        def hits() -> list:
            found = self.context.find_relevant(self.view, name, str(query), top_k=top_k,
                                               embeddings=self.embeddings)
            keys = {str(m.ref): (i, m.name) for i, m in enumerate(var.members)}
            out = []
            for h in found.hits:
                index, key = keys.get(str(h.ref), (0, h.key))
                where = {"key": key} if var.shape == "dict" else {"index": index}
                text = self.view.read_range(h.ref, h.byte_offset, h.byte_length)
                out.append({**where, "text": text.decode("utf-8", errors="replace"),
                            "preview": h.preview, "score": h.score, "ref": str(h.ref),
                            "byte_offset": h.byte_offset, "byte_length": h.byte_length})
            return out

        return self._defer(hits)

    def _call_llm_query(self, prompts: list) -> list[str]:
        if self.llm_query is None:
            raise FailedPreconditionError(
                "llm_query is not available: this REPL has no language model")
        if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
            raise InvalidArgumentError("llm_query takes a str (batched: a list of str)")
        answers = self.llm_query(prompts)
        if len(answers) != len(prompts):
            raise FailedPreconditionError("llm_query returned the wrong number of answers")
        return [str(a) for a in answers]

    def _call_resolve(self, id: int) -> Any:  # noqa: A002 (protocol name)
        future = self._deferred.get(self._index(id))
        if future is None:
            raise InvalidArgumentError(f"no deferred operation {id}")
        try:
            return future.result(timeout=max(0.0, self._deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:
            raise UnavailableError(f"deferred operation {id} is still running") from None

    def _resolve_all(self) -> dict[int, Any]:
        """Results of the deferred operations not reported yet, waiting for
        each only as long as the step's time allows (later ones stay
        pending and are reported after a later step)."""
        done = {}
        for op, future in self._deferred.items():
            if op in self._reported:
                continue
            try:
                value = future.result(timeout=max(0.0, self._deadline - time.monotonic()))
            except concurrent.futures.TimeoutError:
                continue
            except Exception as e:  # noqa: BLE001 (reported, not raised)
                value = f"error: {type(e).__name__}: {e}"
            done[op] = value
            self._reported.add(op)
        return done
