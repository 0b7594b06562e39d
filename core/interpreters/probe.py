"""Look inside a training interpreter from a child process, never from TensorDeck's own.

Two children, each with a timeout:

1. metadata (``child_metadata.py``, ~0.1 s): Python version and bitness, installed TF-related
   distributions, TF's ``build_info`` read from the file (CUDA/cuDNN versions, DLL names), the
   native module's path. It does not import TensorFlow.
2. ``import tensorflow`` (``child_import.py``, seconds), only when asked and TF is installed,
   with ``TF_CPP_MIN_LOG_LEVEL=0`` and ``TF_CPP_MAX_VLOG_LEVEL=1``: on TF 2.21 level 1 is the
   lowest that prints the per-library ``dso_loader.cc ... Could not load dynamic library`` lines
   (level 0: 9 stderr lines, none of them; level 1: 19; level 2: 22, measured on CPU).

Both run the way a task would: with :func:`activation_env` (so a conda env's ``Library\\bin``
is on PATH) and without ``-I``, which would hide user site-packages (``pip install --user``
TF) and PYTHONPATH that the training run will see. The working folder is a fresh empty one,
so nothing in it can shadow a package.

A crash (segfault, Windows 0xC000001D illegal instruction) or a hang (the whole child tree is
killed at the timeout) is a result, never an exception.

An interpreter inside WSL (``wsl://DISTRO/path``) is probed there by the same children, started
through ``wsl.exe`` (:mod:`core.wsl.command`); its cache entry is keyed by that name, so the
same path in two distributions is two entries, and its fingerprint is read there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.fsio import write_private
from core.interpreters.activation import activation_env, clean_base_env
from core.interpreters.child_stat import LIBRARY_VARIABLES, stat_parts
from core.wsl.paths import is_wsl_spec, parse_wsl_spec
from core.wsl.refusals import WslRefusal

if TYPE_CHECKING:
    from core.wsl.command import WslTarget

MARK = "@@tensordeck-probe@@ "
METADATA_TIMEOUT = 60.0
#: How long the launcher waits for "is this a Python?" (~0.1 s normally, seconds on a cold
#: disk) before it calls the interpreter hung and refuses the run.
CHECK_TIMEOUT = 10.0
TF_DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-gpu",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tf-nightly",
    "tf-nightly-gpu",
    "tf-nightly-cpu",
)
#: What every probe child gets besides the task's environment: unbuffered UTF-8 output.
PROBE_VARIABLES = {"PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"}
#: How long after its probe's timeout a child inside WSL is killed there: killing wsl.exe
#: does not end the Linux process it started.
WSL_BACKSTOP = 5.0
#: Windows NTSTATUS exit codes a crashing TF import produces, and what they mean.
_WINDOWS_CRASHES = {
    0xC000001D: "illegal instruction: the CPU lacks an instruction this TF build needs "
    "(usually AVX/AVX2)",
    0xC0000005: "access violation (a native library crashed)",
    0xC0000409: "stack buffer overrun / fail-fast (a native library aborted)",
    0xC0000135: "a required DLL was not found when the process started",
}


@dataclass
class ProbeResult:
    """What probing one interpreter found. ``ok``: the interpreter ran and, when the import
    was attempted, TF imported. ``error``: the first failure, one line. ``tf_version`` comes
    from the import when it ran, else from the installed distribution's metadata."""

    python: str
    ok: bool = False
    error: str | None = None
    python_version: str | None = None
    bits: int | None = None
    platform: str | None = None
    executable: str | None = None
    prefix: str | None = None
    is_conda: bool = False
    is_venv: bool = False
    site_packages: list[str] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)
    tf_package_dir: str | None = None
    tf_build_info: dict | None = None
    tf_native_module: str | None = None
    import_attempted: bool = False
    import_ok: bool = False
    import_error: str | None = None
    tf_version: str | None = None
    keras_version: str | None = None
    devices: list[str] = field(default_factory=list)
    gpus: list[str] = field(default_factory=list)
    built_with_cuda: bool | None = None
    import_returncode: int | None = None
    import_stdout: str = ""
    import_stderr: str = ""
    timed_out: bool = False
    import_seconds: float | None = None
    metadata_seconds: float | None = None
    #: Why the interpreter did not answer the metadata probe ("Permission denied", "exited
    #: with status 2", "did not answer in 10 s (killed)"); None when it did.
    run_error: str | None = None

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ProbeResult:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class _Run:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float

    def payload(self) -> Any:
        for line in reversed(self.stdout.splitlines()):
            if line.startswith(MARK):
                return json.loads(line[len(MARK) :])
        return None


def _child_source(name: str) -> str:
    return Path(__file__).with_name(name).read_text(encoding="utf-8")


def _kill_tree(pid: int) -> None:
    import psutil  # only for a probe that hangs: the launcher reads cached probes on every run

    try:
        parent = psutil.Process(pid)
        victims = [*parent.children(recursive=True), parent]
    except psutil.NoSuchProcess:
        return
    for proc in victims:
        with contextlib.suppress(psutil.NoSuchProcess):  # already gone: what we wanted
            proc.kill()
    psutil.wait_procs(victims, timeout=5)


def _run_child(argv: list[str], env: dict[str, str], source: str, timeout: float,
               args: Sequence[str] = ()) -> _Run:
    """Run ``argv -c source args`` (``argv`` starts the interpreter) in a fresh empty folder."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tensordeck-probe-") as cwd:
        popen_extra: dict[str, Any]
        if sys.platform == "win32":
            popen_extra = {"creationflags": subprocess.CREATE_NO_WINDOW}
        else:  # no Ctrl+C from the terminal into the probe
            popen_extra = {"start_new_session": True}
        proc = subprocess.Popen(
            [*argv, "-c", source, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **popen_extra,
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_tree(proc.pid)
            try:
                out, err = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:  # a grandchild left the tree and holds the pipes
                for pipe in (proc.stdout, proc.stderr):
                    if pipe is not None:  # both are: PIPE above
                        pipe.close()
                out, err = b"", b"(output lost: a process outside the probe kept its pipes open)"
    return _Run(
        returncode=None if timed_out else proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        timed_out=timed_out,
        seconds=time.monotonic() - started,
    )


def describe_exit(returncode: int) -> str:
    """A child's exit status in words: a POSIX signal, a Windows crash code, or the number."""
    if returncode < 0:
        import signal

        try:
            return f"killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    code = returncode & 0xFFFFFFFF
    if code in _WINDOWS_CRASHES:
        return f"crashed with 0x{code:08X}: {_WINDOWS_CRASHES[code]}"
    return f"exited with status {returncode}"


def probe_env(python: str) -> dict[str, str]:
    """The environment both probe children get: the task's, plus unbuffered UTF-8 output."""
    return {**activation_env(python, clean_base_env()), **PROBE_VARIABLES}


class _Unreachable(Exception):
    """An interpreter of this machine that is not there to run."""


@dataclass(frozen=True)
class _Here:
    """An interpreter of this machine, started as a task starts it (:func:`probe_env`)."""

    python: str

    def command(self, variables: Mapping[str, str], timeout: float
                ) -> tuple[list[str], dict[str, str]]:
        return [self.python], {**probe_env(self.python), **variables}


@dataclass(frozen=True)
class _InWsl:
    """An interpreter inside a WSL distribution: started there in ``/`` (none of the user's
    folders to shadow a package), the variables passed through WSLENV, under coreutils'
    ``timeout``, which ends it there :data:`WSL_BACKSTOP` seconds after the probe gave up."""

    target: WslTarget
    path: str

    def command(self, variables: Mapping[str, str], timeout: float
                ) -> tuple[list[str], dict[str, str]]:
        from core.wsl.command import wsl_environment

        argv = self.target.argv(
            "timeout", ["-s", "KILL", f"{timeout + WSL_BACKSTOP:g}", self.path], cwd="/")
        return argv, wsl_environment({**PROBE_VARIABLES, **variables}, base=clean_base_env())


def _starter(python: str) -> _Here | _InWsl:
    """How ``python``'s probe children start. Raises :class:`_Unreachable` or a
    :class:`WslRefusal` when it cannot start at all."""
    if is_wsl_spec(python):
        from core.wsl.command import interpreter_target

        return _InWsl(*interpreter_target(python))
    if not os.path.isfile(python):
        raise _Unreachable("does not exist or is not a file")
    return _Here(python)


def os_error_text(exc: OSError) -> str:
    """The system's words for why a program did not start, with Windows' error number, which its
    documentation and searches know it by ("Internal error, WinError 1359")."""
    text = exc.strerror or str(exc)
    winerror = getattr(exc, "winerror", None)
    return f"{text}, WinError {winerror}" if winerror else text


def probe_interpreter(
    python: str, *, import_tf: bool = True, timeout: float = 120.0
) -> ProbeResult:
    """Probe ``python`` (metadata always; the TF import when ``import_tf`` and TF is there)."""
    result = ProbeResult(python=python)
    try:
        starter = _starter(python)
    except (_Unreachable, WslRefusal) as exc:
        result.run_error = str(exc)
        result.error = f"{python} {exc}" if isinstance(exc, _Unreachable) else f"{python}: {exc}"
        return result
    meta_timeout = min(timeout, METADATA_TIMEOUT)
    try:
        meta = _run_child(*starter.command({}, meta_timeout),
                          _child_source("child_metadata.py"), meta_timeout)
    except OSError as exc:
        result.run_error = os_error_text(exc)
        result.error = f"cannot run {python}: {exc}"
        return result
    result.metadata_seconds = meta.seconds
    data = _metadata(meta)
    if data is None:
        _metadata_failed(result, meta, meta_timeout)
        return result
    for key, value in data.items():
        if hasattr(result, key):
            setattr(result, key, value)
    result.tf_version = next(
        (result.packages[d] for d in TF_DISTRIBUTIONS if d in result.packages), None
    )
    if import_tf and result.tf_package_dir:
        _import_tensorflow(result, starter, timeout)
    result.ok = result.error is None
    return result


def _metadata(meta: _Run) -> dict | None:
    """The metadata child's payload; None when it timed out or printed none (or a marked
    line that is not JSON: not our child's output)."""
    try:
        return meta.payload() if not meta.timed_out else None
    except ValueError:
        return None


def _metadata_failed(result: ProbeResult, meta: _Run, timeout: float) -> None:
    """Say in ``result`` why the metadata child gave no answer: killed after ``timeout``, or
    how it exited, with the last line of its stderr."""
    result.timed_out = meta.timed_out
    if meta.timed_out:
        result.run_error = f"did not answer in {timeout:g} s (killed)"
    else:
        result.run_error = describe_exit(meta.returncode or 0)
    tail = meta.stderr.strip().splitlines()[-1:] or [""]
    result.error = (
        f"{result.python} {result.run_error} while reading its packages. {tail[0]}".strip()
    )


def _import_tensorflow(result: ProbeResult, starter: _Here | _InWsl, timeout: float) -> None:
    argv, env = starter.command({"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_MAX_VLOG_LEVEL": "1"},
                                timeout)
    run = _run_child(argv, env, _child_source("child_import.py"), timeout)
    result.import_attempted = True
    result.import_returncode = run.returncode
    result.import_stdout, result.import_stderr = run.stdout, run.stderr
    result.import_seconds = run.seconds
    result.timed_out = run.timed_out
    data = run.payload() or {}
    for key in (
        "tf_version",
        "keras_version",
        "devices",
        "gpus",
        "built_with_cuda",
        "import_error",
    ):
        if data.get(key) is not None:
            setattr(result, key, data[key])
    if run.timed_out:
        result.error = f"import tensorflow did not finish in {timeout:g} s (killed)"
    elif result.import_error:
        result.error = result.import_error
    elif run.returncode != 0 or not data:
        result.error = f"import tensorflow {describe_exit(run.returncode or 0)}"
    result.import_ok = result.error is None


# -- cache -------------------------------------------------------------------------------------


def _cache_dir() -> Path:
    from core.paths import user_cache_dir

    return user_cache_dir() / "probes"


def canonical(python: str) -> str:
    """The name ``python`` is probed and cached under: an absolute path of this machine, or a
    ``wsl://`` name as :func:`~core.wsl.paths.parse_wsl_spec` writes it (distribution and
    path: the same path in two distributions is two interpreters)."""
    if is_wsl_spec(python):
        try:
            return parse_wsl_spec(python).spec()
        except WslRefusal:
            return python  # the probe says why
    return os.path.abspath(python)


def cache_file(python: str) -> Path:
    """The file that holds ``python``'s cached probe (see :func:`cached_probe`)."""
    key = canonical(python).encode("utf-8", "surrogatepass")
    return _cache_dir() / (hashlib.sha256(key).hexdigest()[:24] + ".json")


def fingerprint(python: str, site_packages: list[str]) -> str:
    """Changes when the interpreter, its installed packages or the library search path change,
    or TensorDeck's code (its probe programs and their reading: core.paths.code_stamp).

    A site-packages folder's mtime moves whenever a distribution is installed or removed (its
    ``*.dist-info`` folder comes or goes); the TF dist-info folders' own mtimes catch
    reinstalls in place; PATH/LD_LIBRARY_PATH/CUDA_PATH decide which DLLs TF finds.
    """
    from core.paths import code_stamp

    parts = [code_stamp()]
    if is_wsl_spec(python):
        parts += _state_in_wsl(python, site_packages)
    else:
        parts += stat_parts([python, *site_packages], site_packages)
        env = probe_env(python)
        parts += [f"{k}={env.get(k, '')}" for k in LIBRARY_VARIABLES]
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _state_in_wsl(python: str, site_packages: list[str]) -> list[str]:
    """:func:`fingerprint`'s reading of an interpreter inside WSL, made there (one wsl.exe
    run of ``child_stat.py``), and the distribution its name resolved to. A failure is a
    state that no cached entry holds: the interpreter is probed again, which says why."""
    try:
        starter = _starter(python)
        assert isinstance(starter, _InWsl)  # a wsl:// name
        argv, env = starter.command({}, CHECK_TIMEOUT)
        wanted = json.dumps([[starter.path, *site_packages], site_packages])
        run = _run_child(argv, env, _child_source("child_stat.py"), CHECK_TIMEOUT, [wanted])
        found = run.payload()
    except (WslRefusal, OSError, ValueError) as exc:
        return [f"unreachable: {exc}"]
    if not isinstance(found, list):
        return ["unreachable: no answer"]
    return [f"distro={starter.target.distro.name}", *map(str, found)]


def cached_probe(python: str, import_tf: bool = True, *, timeout: float = 120.0) -> ProbeResult:
    """:func:`probe_interpreter`, answered from the user cache while :func:`fingerprint` holds.

    A result that includes the import also answers a request without it. Timed-out probes
    are not cached: a hang may be a one-off (a cold disk, an antivirus scan).
    """
    python = canonical(python)
    path = cache_file(python)
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        cached = ProbeResult.from_json(entry["result"])
        usable = cached.import_attempted or not import_tf or not cached.tf_package_dir
        if usable and entry["fingerprint"] == fingerprint(python, cached.site_packages):
            return cached
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no cache yet, or one from another version: probe afresh
    result = probe_interpreter(python, import_tf=import_tf, timeout=timeout)
    if not result.timed_out and result.python_version:
        entry = {
            "fingerprint": fingerprint(python, result.site_packages),
            "result": result.to_json(),
        }
        with contextlib.suppress(OSError):  # a read-only or full cache only costs a re-probe
            path.parent.mkdir(parents=True, exist_ok=True)
            write_private(path, json.dumps(entry))
    return result


def interpreter_problem(python: str, timeout: float = CHECK_TIMEOUT) -> str | None:
    """Why ``python`` cannot run a training script, found by running it (the cached metadata
    probe, which the doctor's pre-run checks then reuse), never by its name; None when it is a
    Python. A hanging one is killed after ``timeout`` seconds."""
    probe = cached_probe(python, import_tf=False, timeout=timeout)
    if probe.python_version:
        return None
    fix = "give the path of python(.exe) in the training environment"
    if probe.timed_out:
        return (
            f"{python} did not answer in {timeout:g} s (killed): it hangs, or is not a Python; "
            + fix
        )
    why = probe.run_error or "it printed no version"
    return f"{python} does not run as a Python interpreter ({why}); {fix}"
