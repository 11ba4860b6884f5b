"""Escapes from the REPL's sandbox (docs/python.md, "The sandbox"): what
model-written code must not read, write, reach or exhaust. Each test runs
hostile code through Repl.step and checks what it could do.

Probes that leave the sandbox usable share one REPL per module (started
with a canary in the environment and an inheritable descriptor open);
those that need other limits or kill the worker start their own."""

from __future__ import annotations

import json
import os
import pathlib
import secrets
from typing import Iterator

import pytest

import ctxkit
from ctxkit.repl import Repl, SandboxLimits, StepResult

CANARY = f"sk-CANARY-{secrets.token_hex(8)}"
# What the sandbox's own processes may carry: the worker's command line and
# the environment bubblewrap sets for it.
WORKER_CMDLINE = ["/usr/bin/python3", "-I", "-S", "/ctxkit/worker.py",
                  str(SandboxLimits().scratch_bytes), str(SandboxLimits().scratch_files)]
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/scratch", "TMPDIR": "/scratch",
               "PYTHONDONTWRITEBYTECODE": "1", "PWD": "/scratch"}


def _context(home: pathlib.Path) -> tuple[ctxkit.View, ctxkit.ExternalizedContext]:
    store = ctxkit.Store(str(home))
    ctxkit.Session.create(store, "s")
    view = store.view(agent="a", session="s")
    ctx = ctxkit.ExternalizedContext.from_session(view, "s", "q")
    ctx.add_variable(view, "notes", view.set("notes", "one\ntwo\n"))
    return view, ctx


class Host:
    """What the harness holds while the shared sandbox starts: a canary in
    its environment and in an inheritable descriptor, a store, a cwd."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.home = root / "store"
        self.cwd = root / "cwd"
        self.cwd.mkdir()
        (self.cwd / "secret.txt").write_text(CANARY)
        self.canary_file = root / "canary-fd.txt"
        self.canary_file.write_text(CANARY)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Host:
    return Host(tmp_path_factory.mktemp("host"))


@pytest.fixture(scope="module")
def sandbox(host: Host) -> Iterator[Repl]:
    fd = os.open(host.canary_file, os.O_RDONLY)
    os.set_inheritable(fd, True)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CTXKIT_LLM_API_KEY", CANARY)
            patch.chdir(host.cwd)
            view, ctx = _context(host.home)
            with Repl(view, ctx, limits=SandboxLimits(step_seconds=10)) as repl:
                yield repl
    finally:
        os.close(fd)


def run(repl: Repl, code: str) -> StepResult:
    step = repl.step(code)
    assert step.error is None, step.error
    return step


def run_json(repl: Repl, code: str) -> object:
    """Runs code that prints one JSON document; returns it."""
    return json.loads(run(repl, code).output)


# Every process the sandbox can see, as /proc shows it: environment,
# command line and where each open descriptor leads.
_PROCESSES = r"""
import os
def read(path):
    try:
        with open(path, 'rb') as f:
            return f.read().decode('utf-8', 'replace')
    except OSError as e:
        return f'error: {e.strerror}'
def fds(pid):
    out = {}
    try:
        names = os.listdir(f'/proc/{pid}/fd')
    except OSError as e:
        return {'error': e.strerror}
    for fd in names:
        try:
            out[fd] = os.readlink(f'/proc/{pid}/fd/{fd}')
        except OSError:
            pass  # the descriptor listdir itself used
    return out
print(json.dumps({pid: {'environ': read(f'/proc/{pid}/environ'),
                        'cmdline': read(f'/proc/{pid}/cmdline'), 'fds': fds(pid)}
                  for pid in os.listdir('/proc') if pid.isdigit()}))
"""


# -- the environment, argv and descriptors of the host ----------------------

def test_canary_in_the_harness_environment_is_not_readable(sandbox: Repl) -> None:
    for path in ("/proc/self/environ", "/proc/1/environ"):
        step = run(sandbox, f"print(open({path!r}, 'rb').read())")
        assert CANARY not in step.output and "CTXKIT_LLM_API_KEY" not in step.output, path
    environ = run_json(sandbox, "import os; print(json.dumps(dict(os.environ)))")
    environ.pop("LC_CTYPE", None)  # Python's own locale coercion (PEP 538) sets it.
    assert environ == SANDBOX_ENV


def test_every_visible_process_is_the_sandboxs_own(sandbox: Repl) -> None:
    processes = run_json(sandbox, _PROCESSES)
    # The worker is process 1: no copy of bubblewrap (started with the
    # host's environment and argv) is left inside.
    assert list(processes) == ["1"]
    for pid, seen in processes.items():
        assert CANARY not in json.dumps(seen)
        assert seen["cmdline"].split("\0")[:-1] == WORKER_CMDLINE, pid
        environ = dict(v.split("=", 1) for v in seen["environ"].split("\0") if v)
        assert environ == SANDBOX_ENV, pid


def test_no_host_descriptor_is_open_inside(sandbox: Repl, host: Host) -> None:
    processes = run_json(sandbox, _PROCESSES)
    for pid, seen in processes.items():
        targets = set(seen["fds"].values())
        # The protocol's pipes, stderr's pipe and /dev/null: no file of the
        # host (the canary descriptor the harness left inheritable, the
        # host's temporary directory) and nothing else.
        assert all(t.startswith("pipe:[") or t == "/dev/null" for t in targets), targets
        assert str(host.canary_file) not in targets
    # Every descriptor the worker holds, by what fstat says it is.
    kinds = run_json(sandbox, "import os, stat\nkinds = []\nfor fd in range(1024):\n"
                              "    try:\n        mode = os.fstat(fd).st_mode\n"
                              "    except OSError:\n        continue\n"
                              "    kinds.append('fifo' if stat.S_ISFIFO(mode) else 'chr'"
                              " if stat.S_ISCHR(mode) else oct(mode))\n"
                              "print(json.dumps(kinds))")
    assert set(kinds) <= {"fifo", "chr"}, kinds


def test_host_paths_are_not_in_any_process_or_mount(sandbox: Repl, host: Host) -> None:
    dump = json.dumps(run_json(sandbox, _PROCESSES))
    dump += run(sandbox, "print(open('/proc/self/mountinfo').read())").output
    for path in (str(host.root), os.getcwd(), "/tmp/", "ctxkit-"):
        assert path not in dump, path


def test_a_sandbox_that_cannot_start_says_why(tmp_path: pathlib.Path) -> None:
    # Too little address space for the dynamic loader: bubblewrap or Python
    # fails before the worker speaks, and its stderr is in the error.
    view, ctx = _context(tmp_path / "store")
    with pytest.raises(ctxkit.FailedPreconditionError,
                       match="did not start .*error while loading shared libraries"):
        Repl(view, ctx, limits=SandboxLimits(memory_bytes=1 << 20))


# -- writes: only /scratch, and it is bounded --------------------------------

# Tries each write; prints {path: "ok" or the error's name}.
_WRITES = r"""
import errno, os
out = {}
for path in PATHS:
    try:
        if path.endswith('/'):
            os.mkdir(path)
        else:
            with open(path, 'wb') as f:
                f.write(b'x' * 4096)
        out[path] = 'ok'
    except OSError as e:
        out[path] = errno.errorcode[e.errno]
print(json.dumps(out))
"""


def writes(repl: Repl, paths: list[str]) -> dict[str, str]:
    return run_json(repl, f"PATHS = {paths!r}\n{_WRITES}")


def test_dev_and_dev_shm_are_read_only(sandbox: Repl) -> None:
    # Both were tmpfs in RAM, writable without bound.
    got = writes(sandbox, ["/dev/shm/fill", "/dev/fill", "/dev/shm/dir/", "/dev/dir/"])
    assert got == {"/dev/shm/fill": "EROFS", "/dev/fill": "EROFS",
                   "/dev/shm/dir/": "EROFS", "/dev/dir/": "EROFS"}
    # The devices themselves still work.
    assert run(sandbox, "open('/dev/null', 'w').write('x'); "
                        "print(len(open('/dev/urandom', 'rb').read(8)))").output == "8\n"


def test_only_scratch_is_writable(sandbox: Repl, host: Host) -> None:
    elsewhere = ["/x", "/new/", "/usr/x", "/usr/lib/x", "/ctxkit/worker.py", "/ctxkit/x",
                 "/tmp/x", "/proc/x", "/dev/pts/x", "/etc/x", str(host.root / "x")]
    got = writes(sandbox, elsewhere + ["/scratch/ok", "/scratch/dir/", "relative"])
    assert {p: got[p] for p in elsewhere if got[p] == "ok"} == {}
    assert got["/scratch/ok"] == got["/scratch/dir/"] == got["relative"] == "ok"
    assert not (host.root / "x").exists()


def test_scratch_is_a_bounded_tmpfs(tmp_path: pathlib.Path) -> None:
    view, ctx = _context(tmp_path / "store")
    limits = SandboxLimits(scratch_bytes=4 << 20, scratch_files=64)
    with Repl(view, ctx, limits=limits) as repl:
        # Bytes: 1 MiB files until the tmpfs is full (or 16 of them).
        filled = run_json(repl, r"""
import os
written, error = 0, None
try:
    for i in range(16):
        with open(f'big{i}', 'wb') as f:
            f.write(b'x' * (1 << 20))
        written += 1 << 20
except OSError as e:
    error = e.strerror
st = os.statvfs('/scratch')
print(json.dumps({'written': written, 'error': error, 'size': st.f_blocks * st.f_frsize}))
""")
        assert filled["error"] == "No space left on device"
        assert filled["written"] <= 4 << 20 and filled["size"] == 4 << 20
        # Files: empty ones cost kernel memory too; the tmpfs holds 64 inodes.
        made = run_json(repl, r"""
import os
for name in os.listdir('.'):
    os.remove(name)
os.mkdir('d')
made, error = 0, None
try:
    for i in range(1000):
        open(f'd/{i}', 'w').close()
        made += 1
except OSError as e:
    error = e.strerror
print(json.dumps({'made': made, 'error': error}))
""")
        assert made["error"] == "No space left on device" and 0 < made["made"] < 64


def test_no_nested_user_namespace(sandbox: Repl) -> None:
    # One would give the code every capability there, enough to mount a
    # tmpfs of its own without bound.
    got = run(sandbox, "import subprocess\n"
                       "r = subprocess.run(['/usr/bin/unshare', '-Urm', 'sh', '-c',"
                       " 'mount -t tmpfs none /scratch && echo mounted'],"
                       " capture_output=True, text=True)\n"
                       "print(r.returncode, r.stdout.strip())").output
    assert got != "0 mounted\n" and got.split()[0] != "0"


def test_no_capabilities_are_left(sandbox: Repl) -> None:
    # The worker held CAP_SYS_ADMIN and CAP_SETPCAP to mount /scratch.
    status = run(sandbox, "print(open('/proc/self/status').read())").output
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(fields[name], 16) == 0, (name, fields[name])
    assert fields["NoNewPrivs"].strip() == "1"
    mount = sandbox.step("import os\nos.makedirs('m', exist_ok=True)\n"
                         "import subprocess\nr = subprocess.run(['/usr/bin/mount', '-t', 'tmpfs',"
                         " 'none', 'm'], capture_output=True, text=True)\nprint(r.returncode)")
    assert mount.error is None and mount.output != "0\n"


@pytest.mark.parametrize("field, value", [
    ("scratch_bytes", 0),       # a tmpfs with size=0 would have no bound at all
    ("scratch_files", -1), ("scratch_bytes", "64M"), ("memory_bytes", True),
    ("processes", 1.5), ("step_seconds", float("nan")), ("step_seconds", float("inf")),
])
def test_bad_limits_are_refused(field: str, value: object) -> None:
    with pytest.raises(ctxkit.InvalidArgumentError, match=f"SandboxLimits.{field} must be"):
        SandboxLimits(**{field: value})


# -- memory no limit counts ---------------------------------------------------

def test_no_sysv_shared_memory_message_queues_or_memfds(sandbox: Repl) -> None:
    # SysV segments outlive the process that made them (six of 256 MiB,
    # each attached and detached in turn, held 1.5 GiB under a 1 GiB
    # limit); a memfd is RAM beyond RLIMIT_AS. All fail with EPERM.
    got = run_json(sandbox, r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
out = {}
out['shmget'] = libc.shmget(0, ctypes.c_size_t(1 << 20), 0o1600)
out['shmget_errno'] = errno.errorcode.get(ctypes.get_errno())
out['msgget'] = libc.msgget(0, 0o1600)
out['msgget_errno'] = errno.errorcode.get(ctypes.get_errno())
try:
    os.memfd_create('fill')
    out['memfd_create'] = 'ok'
except OSError as e:
    out['memfd_create'] = errno.errorcode[e.errno]
print(json.dumps(out))
""")
    assert got == {"shmget": -1, "shmget_errno": "EPERM", "msgget": -1,
                   "msgget_errno": "EPERM", "memfd_create": "EPERM"}


def test_an_architecture_without_a_filter_is_refused(tmp_path: pathlib.Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    view, ctx = _context(tmp_path / "store")
    real = os.uname()
    fake = os.uname_result((real.sysname, real.nodename, real.release, real.version, "sparc64"))
    monkeypatch.setattr(os, "uname", lambda: fake)
    with pytest.raises(ctxkit.FailedPreconditionError,
                       match="seccomp filter knows x86_64, aarch64, riscv64 .*not sparc64"):
        Repl(view, ctx)
