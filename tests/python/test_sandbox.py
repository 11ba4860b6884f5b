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
import socket
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


# -- /proc in general -----------------------------------------------------------

def test_proc_shows_only_the_sandbox(sandbox: Repl) -> None:
    got = run_json(sandbox, r"""
import errno, os
def write(path):
    try:
        with open(path, 'w') as f:
            f.write('1')
        return 'ok'
    except OSError as e:
        return errno.errorcode[e.errno]
print(json.dumps({
    'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),
    'net': [line.split(':')[0].strip() for line in open('/proc/net/dev').readlines()[2:]],
    'cgroup': open('/proc/self/cgroup').read(),
    'hostname': open('/proc/sys/kernel/hostname').read(),
    'writes': {p: write(p) for p in ('/proc/sys/kernel/hostname', '/proc/sys/vm/drop_caches',
                                      '/proc/sysrq-trigger', '/proc/sys/user/max_user_namespaces')},
}))
""")
    assert got["pids"] == ["1"]                    # no host process, no bubblewrap
    assert got["net"] == ["lo"]                    # its own network namespace
    # Its own cgroup namespace: every hierarchy's path is its root.
    assert got["cgroup"] and all(line.endswith(":/") for line in got["cgroup"].splitlines())
    assert got["hostname"] == "sandbox\n"           # not the host's name
    assert "ok" not in got["writes"].values(), got["writes"]


# -- the network ------------------------------------------------------------------

def test_no_socket_reaches_the_host_or_beyond(sandbox: Repl) -> None:
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    abstract = socket.socket(socket.AF_UNIX)
    abstract_name = f"\0ctxkit-sandbox-test-{secrets.token_hex(6)}"
    abstract.bind(abstract_name)
    abstract.listen(8)
    abstract.setblocking(False)
    tcp6 = None
    if socket.has_ipv6:
        try:
            tcp6 = socket.socket(socket.AF_INET6)
            tcp6.bind(("::1", 0))
            tcp6.listen(8)
            tcp6.setblocking(False)
        except OSError:
            tcp6 = None   # no IPv6 loopback on this host
    targets = {"tcp": ["AF_INET", "SOCK_STREAM", ["127.0.0.1", tcp.getsockname()[1]]],
               "abstract": ["AF_UNIX", "SOCK_STREAM", abstract_name],
               "outside": ["AF_INET", "SOCK_STREAM", ["192.0.2.1", 80]]}   # TEST-NET-1
    if tcp6:
        targets["tcp6"] = ["AF_INET6", "SOCK_STREAM", ["::1", tcp6.getsockname()[1]]]
    try:
        got = run_json(sandbox, f"TARGETS = {targets!r}\nUDP_PORT = {udp.getsockname()[1]}\n" + r"""
import errno, socket
out = {}
for name, (family, kind, address) in TARGETS.items():
    s = socket.socket(getattr(socket, family), getattr(socket, kind))
    s.settimeout(2)
    try:
        s.connect(tuple(address) if isinstance(address, list) else address)
        out[name] = 'connected'
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e))
    finally:
        s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.sendto(b'hello host', ('127.0.0.1', UDP_PORT))   # its own loopback: nobody there
try:
    socket.getaddrinfo('example.com', 80)
    out['dns'] = 'resolved'
except socket.gaierror as e:
    out['dns'] = 'gaierror'
out['interfaces'] = [n for _, n in socket.if_nameindex()]
print(json.dumps(out))
""")
        assert got["tcp"] == "ECONNREFUSED" and got["abstract"] == "ECONNREFUSED"
        assert got.get("tcp6", "ECONNREFUSED") == "ECONNREFUSED"
        assert got["outside"] == "ENETUNREACH" and got["dns"] == "gaierror"
        assert got["interfaces"] == ["lo"]
        for listener in filter(None, (tcp, abstract, tcp6)):
            with pytest.raises(BlockingIOError):
                listener.accept()
        with pytest.raises(BlockingIOError):
            udp.recv(100)
    finally:
        for s in filter(None, (tcp, udp, abstract, tcp6)):
            s.close()


# -- host files -------------------------------------------------------------------

def test_host_files_are_not_there(sandbox: Repl, host: Host) -> None:
    paths = ["/etc/shadow", "/etc/passwd", "/root", "/home", "/var", "/run", "/tmp",
             str(host.home), str(host.home / "ctxkit.db"), str(host.cwd),
             str(host.cwd / "secret.txt"), os.path.expanduser("~/.ssh/id_rsa"),
             str(pathlib.Path(ctxkit.__file__).parent), "/usr/../etc/shadow",
             "/proc/1/root/etc/shadow"]
    got = run_json(sandbox, f"PATHS = {paths!r}\n" + r"""
import errno, os
out = {}
for path in PATHS:
    try:
        out[path] = ('listed', os.listdir(path)) if os.path.isdir(path) else \
            ('read', open(path, 'rb').read(64).decode('utf-8', 'replace'))
    except OSError as e:
        out[path] = ('error', errno.errorcode[e.errno])
print(json.dumps({'paths': out, 'root': sorted(os.listdir('/')),
                  'usr': os.path.exists('/usr/bin/python3')}))
""")
    assert {p: r for p, r in got["paths"].items() if r != ["error", "ENOENT"]} == {}
    # The root holds what the sandbox mounts and nothing of the host's.
    assert set(got["root"]) <= {"bin", "lib", "lib32", "lib64", "libx32", "sbin", "usr",
                                "ctxkit", "scratch", "proc", "dev"}
    assert got["usr"]   # /usr is there, read-only (installed software)


# -- processes, memory, CPU -----------------------------------------------------------

def test_fork_bomb_stops_at_the_process_limit(tmp_path: pathlib.Path) -> None:
    view, ctx = _context(tmp_path / "store")
    with Repl(view, ctx, limits=SandboxLimits(processes=4, step_seconds=10)) as repl:
        got = run_json(repl, r"""
import errno, os, time
forks, error = 0, None
try:
    while forks < 10000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        forks += 1
except OSError as e:
    error = errno.errorcode[e.errno]
print(json.dumps({'forks': forks, 'error': error}))
""")
        assert got["error"] == "EAGAIN"
        # RLIMIT_NPROC counts the uid's tasks (as root: nobody's, which
        # other sandboxes on the machine may share): the sandbox gets
        # `processes` beyond what that uid ran when it started.
        assert 0 < got["forks"] <= 4 + 16, got
        # Children the step left behind are gone when it ends; an
        # exponential bomb stops the same way.
        assert run_json(repl, "import os; print(json.dumps("
                              "[p for p in os.listdir('/proc') if p.isdigit()]))") == ["1"]
        bomb = repl.step("import os\nwhile True:\n    os.fork()")
        assert bomb.error and "Resource temporarily unavailable" in bomb.error
        assert not bomb.restarted and bomb.elapsed_seconds < 5
        assert run(repl, "print(len(notes))").output == "2\n"


def test_memory_limit(sandbox: Repl) -> None:
    # 1 GiB of address space by default, per process: an allocation over it
    # is a MemoryError in the step (or in a child), not a crash.
    step = sandbox.step("x = bytearray(2 << 30)")
    assert step.error and "MemoryError" in step.error and not step.restarted
    child = run(sandbox, "import os\npid = os.fork()\nif pid == 0:\n    try:\n"
                         "        bytearray(2 << 30)\n        os._exit(0)\n"
                         "    except MemoryError:\n        os._exit(7)\n"
                         "print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))")
    assert child.output == "7\n"
    assert run(sandbox, "x = bytearray(64 << 20); print(len(x))").output == f"{64 << 20}\n"


def test_cpu_limit_kills_the_worker(tmp_path: pathlib.Path) -> None:
    view, ctx = _context(tmp_path / "store")
    with Repl(view, ctx, limits=SandboxLimits(cpu_seconds=1, step_seconds=20)) as repl:
        step = repl.step("while True:\n    pass")
        assert step.restarted and "killed by SIGKILL" in step.error
        assert step.elapsed_seconds < 10
        assert run(repl, "print(len(notes))").output == "2\n"
