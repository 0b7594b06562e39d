"""Hostile and broken input: every bad config, path or interpreter is refused by the real CLI with
exit 2, one line per problem naming the field and the fix, nothing started, nothing written, in
bounded time; the user's files are never overwritten; a fuzz test of the loader.

The table in docs/reliability.md ("Bad input") points at these tests."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.config import MAX_CONFIG_BYTES, ConfigError, JobConfig, load_config, parse_config
from core.run import MARKER, Run, RunFolderError, claim_run_folder
from core.topology import plan_run
from tests.conftest import REPO, read_summary, tensordeck, under_wine

IS_WINDOWS = sys.platform == "win32"
POSIX_ONLY = pytest.mark.skipif(IS_WINDOWS, reason="FIFOs, devices and /bin/ls are POSIX's")
NOT_ROOT = pytest.mark.skipif(
    IS_WINDOWS or os.geteuid() == 0, reason="root (and Windows) may write in a 0500 folder"
)
NO_DOCTOR = "--no-doctor"
GOOD = {"name": "t", "strategy": "single", "script": "task.py"}
TASK = "import os, sys; print('ran', os.environ['TENSORDECK_RUN_DIR'], *sys.argv[1:])\n"
#: A cluster of many tasks (the open-file and task-count limits).
CLUSTER = {"strategy": "between_graph", "tasks": [{"role": "ps"}, {"role": "worker"}]}


def write_job(folder: Path, data: dict | str | bytes, name: str = "job.json") -> Path:
    """The job file (a dict as JSON, a str or bytes as they are) and its task.py."""
    (folder / "task.py").write_text(TASK)
    path = folder / name
    if isinstance(data, dict):
        data = json.dumps(data)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    return path


def files_in(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: 'nothing written' is 'nothing changed'."""
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(folder.rglob("*"))
    }


def assert_refused(result: subprocess.CompletedProcess, source: Path | str, *expected: str) -> None:
    """Exit 2; every line but the last is 'SOURCE: field: problem and fix'; the last says
    nothing was started."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert lines[-1] == "tensordeck: nothing was started.", result.stderr
    assert lines[:-1] and all(line.startswith(f"{source}: ") for line in lines[:-1]), lines
    for text in expected:
        assert text in result.stderr, result.stderr


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def job_text(**fields: str) -> str:
    """GOOD as JSON text with raw JSON ``fields`` appended (what json.dumps cannot write)."""
    return json.dumps(GOOD)[:-1] + "".join(f', "{k}": {v}' for k, v in fields.items()) + "}"


LONG_NAME = "n" * 300
LONG_PATH = "/".join(["d" * 200] * 25)  # every name fits, the whole is ~5000 characters
BIG = "x" * 200_000  # longer than one argument or variable may be on Linux and Windows

# (id, file content: a dict of changes to GOOD, or raw text, expected text in the message)
BAD_CONFIGS = [
    ("deep nesting", deep(100_000), "nested deeper than 32 levels"),
    ("deep nesting in a field", job_text(args=deep(40)), "args[0][0]"),
    ("5000-digit integer", job_text(stop_grace_seconds="9" * 5000), "stop_grace_seconds: a 5000"),
    ("duplicate key", job_text(name='"u"'), "name: duplicate key 'name'"),
    ("duplicate env key", job_text(env='{"A": "1", "A": "2"}'), "env.A: duplicate key 'A'"),
    ("Infinity", job_text(stop_grace_seconds="Infinity"), "Infinity is not a JSON number"),
    ("NaN", job_text(restart='{"backoff_seconds": NaN}'), "restart.backoff_seconds: NaN is"),
    ("-Infinity", job_text(stop_grace_seconds="-Infinity"), "stop_grace_seconds: -Infinity"),
    ("1e999", job_text(stop_grace_seconds="1e999"), "1e999 is too large for a number"),
    ("not UTF-8", b'{"name": "\xff\xfe"}', "is not UTF-8 text (byte 0xff at offset 10)"),
    ("NUL in env value", {"env": {"A": "a\x00b"}}, "env.A: contains a NUL character"),
    ("NUL in env key", {"env": {"A\x00B": "x"}}, "env.A\\x00B: key contains a NUL character"),
    ("NUL in args", {"args": ["ok", "a\x00"]}, "args[1]: contains a NUL character"),
    ("NUL in name", {"name": "a\x00b"}, "name: contains a NUL character"),
    ("surrogate in name", {"name": "a\ud800"}, "name: contains a lone surrogate (\\ud800)"),
    ("surrogate in args", {"args": ["\udfff"]}, "args[0]: contains a lone surrogate"),
    ("surrogate in env", {"env": {"A": "\udc80"}}, "env.A: contains a lone surrogate"),
    ("newline in env key", {"env": {"A\nB": "x"}}, "env: 'A\\nB' is not a valid variable name"),
    ("= in env key", {"env": {"A=B": "x"}}, "env: 'A=B' is not a valid variable name"),
    ("empty env key", {"env": {"": "x"}}, "env: '' is not a valid variable name"),
    (
        "shell in host",
        {**CLUSTER, "tasks": [{"role": "ps", "host": "127.0.0.1;touch pwned"}, {"role": "worker"}]},
        "tasks[0].host: '127.0.0.1;touch pwned' is not a host name or IP address",
    ),
    (
        "command substitution in host",
        {**CLUSTER, "tasks": [{"role": "ps"}, {"role": "worker", "host": "127.$(id)"}]},
        "tasks[1].host: '127.$(id)' is not a host name",
    ),
    (
        "ssh option as node host",
        {"address": "10.0.0.1", "nodes": {"n": {"host": "-oProxyCommand=id", "python": "p"}}},
        "nodes.n.host: '-oProxyCommand=id' is not a host name",
    ),
    (
        "shell in node user",
        {"nodes": {"n": {"host": "10.0.0.2", "user": "a;id", "python": "p"}}},
        "nodes.n.user: 'a;id' is not a user name",
    ),
    ("slash in node name", {"nodes": {"a/b": {"host": "10.0.0.2", "python": "p"}}}, "nodes:"),
    ("escape in name", {"name": "a\x1b[2Jb"}, "name: must be 1-64 characters"),
    ("newline in args", {"args": ["x\ny"]}, "args[0]: contains the control character \\n"),
    ("escape in args", {"args": ["\x1b]52;c;Y3VybA==\x07"]}, "args[0]: contains the control"),
    ("control in script", {"script": "task.py\r"}, "script: contains the control character"),
    ("unknown key with escapes", {"a\nb\x1b[31m": 1}, "a\\nb\\x1b[31m: unknown key"),
    (
        "count 10^9",
        {**CLUSTER, "tasks": [{"role": "ps"}, {"role": "worker", "count": 10**9}]},
        "tasks[1].count: must be <= 1024",
    ),
    (
        "too many tasks",
        {**CLUSTER, "tasks": [{"role": "ps", "count": 1000}, {"role": "worker", "count": 1000}]},
        "tasks: 2000 tasks in all; a run has at most 1024",
    ),
    (
        "too many task entries",
        {**CLUSTER, "tasks": [{"role": "worker"}] * 2000},
        "tasks: at most 1024 entries",
    ),
    ("endless grace", {"stop_grace_seconds": 1e300}, "stop_grace_seconds: must be <= 86400"),
    ("script name too long", {"script": LONG_NAME + ".py"}, "script: the name 'nnnn"),
    ("script path too long", {"script": LONG_PATH + "/t.py"}, "script: the path is"),
    ("python name too long", {"python": "./" + LONG_NAME}, "python: the name 'nnnn"),
    ("run_dir name too long", {"run_dir": LONG_NAME}, "run_dir: the name 'nnnn"),
    ("run_dir path too long", {"run_dir": LONG_PATH}, "run_dir: the path is"),
    ("run_dir is a file", {"run_dir": "task.py"}, "run_dir: ", "task.py is a file"),
    ("run_dir under a file", {"run_dir": "task.py/run"}, "task.py, which is a file"),
    ("run_dir is the config's folder", {"run_dir": "."}, "is not empty (job.json, task.py)"),
    ("argument too long", {"args": [BIG]}, "args: the command line of worker-0 is longer"),
    ("variable too long", {"env": {"BIG": BIG}}, "env.BIG: is longer than this system allows"),
    ("not executable", {"python": "./task.py"}, "python: ", "does not run as a Python"),
    ("script is a folder", {"script": "."}, "script: ", "is a folder; give the training script"),
]
if sys.platform.startswith("linux"):
    BAD_CONFIGS.append(("run_dir in /proc", {"run_dir": "/proc/td"}, "which is not for files"))
if not IS_WINDOWS:
    BAD_CONFIGS += [
        ("python is /bin/ls", {"python": "/bin/ls"}, "/bin/ls does not run as a"),
        ("script is a device", {"script": "/dev/zero"}, "script: /dev/zero is not a regular"),
    ]


def bad_job(tmp_path: Path, content: dict | str | bytes) -> Path:
    return write_job(tmp_path, {**GOOD, **content} if isinstance(content, dict) else content)


@pytest.mark.parametrize(
    ("content", "expected"),
    [(c, e) for _, c, *e in BAD_CONFIGS],
    ids=[case[0] for case in BAD_CONFIGS],
)
def test_bad_config_is_refused_with_the_field_and_nothing_written(tmp_path, content, expected):
    path = bad_job(tmp_path, content)
    before = files_in(tmp_path)
    started = time.monotonic()
    result = tensordeck("--run", str(path), timeout=30)
    assert_refused(result, path, *expected)
    assert time.monotonic() - started < 15
    assert files_in(tmp_path) == before  # no run folder, no file touched


def _validate(path):
    """``tensordeck validate PATH``. Under Wine, CreateProcess from several threads at once fails
    now and then with ERROR_INTERNAL_ERROR (1359), which Windows itself does not: tried again."""
    for _ in range(2):
        try:
            return tensordeck("validate", str(path), timeout=60)
        except OSError as exc:
            if not (under_wine() and getattr(exc, "winerror", None) == 1359):
                raise
    return tensordeck("validate", str(path), timeout=60)


def test_validate_refuses_every_bad_config_that_run_refuses(tmp_path):
    """validate says ok only when --run would start: it refuses the whole table too."""
    jobs = []
    for i, (_, content, *expected) in enumerate(BAD_CONFIGS):
        folder = tmp_path / str(i)
        folder.mkdir()
        jobs.append((bad_job(folder, content), expected))
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda job: _validate(job[0]), jobs))
    for (path, expected), result in zip(jobs, results, strict=True):
        assert_refused(result, path, *expected)
    assert not list(tmp_path.rglob("runs"))


# --- the config file itself ----------------------------------------------------------------


@POSIX_ONLY
@pytest.mark.parametrize("command", ["validate", "--run"])
def test_a_fifo_as_config_is_refused_without_blocking(tmp_path, command):
    fifo = tmp_path / "job.json"
    os.mkfifo(fifo)
    assert_refused(tensordeck(command, str(fifo), timeout=20), fifo, "is not a regular file")


@POSIX_ONLY
@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_a_device_as_config_is_refused_without_reading_it(device):
    assert_refused(tensordeck("--run", device, timeout=20), device, "is not a regular file")


def test_a_folder_as_config_is_refused(tmp_path):
    assert_refused(tensordeck("validate", str(tmp_path)), tmp_path, "is a folder")


def test_a_huge_config_is_refused_from_its_size(tmp_path):
    path = tmp_path / "job.json"
    with open(path, "wb") as file:
        file.truncate(MAX_CONFIG_BYTES + 1)  # sparse where it can be: nothing to read anyway
    started = time.monotonic()
    assert_refused(tensordeck("--run", str(path)), path, "is larger than 16 MiB")
    assert time.monotonic() - started < 10


# --- the run folder -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("task.py", "is a file"),
        ("task.py/run", "which is a file"),
        (LONG_NAME, "the name 'nnnn"),
        (LONG_PATH, "the path is"),
        ("occupied", "is not empty (mine.txt)"),
    ],
    ids=["a file", "under a file", "name too long", "path too long", "not empty"],
)
def test_a_bad_run_dir_option_is_refused_and_nothing_written(tmp_path, where, expected):
    path = write_job(tmp_path, GOOD)
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "mine.txt").write_text("the user's")
    before = files_in(tmp_path)
    result = tensordeck("--run", str(path), "--run-dir", str(tmp_path / where))
    assert_refused(result, path, "--run-dir: ", expected)
    assert files_in(tmp_path) == before


@NOT_ROOT
def test_a_read_only_run_dir_is_refused(tmp_path):
    path = write_job(tmp_path, GOOD)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        result = tensordeck("--run", str(path), "--run-dir", str(locked / "run"))
    finally:
        locked.chmod(0o700)
    assert_refused(result, path, f"--run-dir: cannot create {locked / 'run'}", "read-only")
    assert not list(locked.iterdir())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_run_dir_in_proc_is_refused():
    path = REPO / "resources" / "examples" / "quickstart.json"
    result = tensordeck("--run", str(path), "--run-dir", "/proc/self/td-run")
    assert_refused(result, path, "--run-dir: /proc/self/td-run is in /proc, which is not for files")


# --- the interpreter ------------------------------------------------------------------------


@POSIX_ONLY
def test_ls_as_python_is_refused_even_without_the_doctor(tmp_path):
    path = write_job(tmp_path, {**GOOD, "python": "/bin/ls"})
    for args in (["validate", str(path)], ["--run", str(path)], ["--run", str(path), NO_DOCTOR]):
        assert_refused(tensordeck(*args), path, "python: /bin/ls does not run as a Python")
    assert not (tmp_path / "runs").exists()


def test_a_text_file_as_python_is_refused(tmp_path):
    fake = tmp_path / "python-text"
    fake.write_text("#!/bin/sh\nexit 0\n")  # not executable; on Windows not a program at all
    path = write_job(tmp_path, {**GOOD, "python": str(fake)})
    for args in (["validate", str(path)], ["--run", str(path), "--no-doctor"]):
        assert_refused(tensordeck(*args), path, f"python: {fake} does not run as a Python")
    assert not (tmp_path / "runs").exists()


@POSIX_ONLY
def test_a_hanging_interpreter_is_refused_in_bounded_time(tmp_path):
    hang = tmp_path / "python-hangs"
    hang.write_text("#!/bin/sh\nwhile :; do sleep 1; done\n")
    hang.chmod(0o755)
    path = write_job(tmp_path, {**GOOD, "python": str(hang)})
    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:  # both at once: the wait is the test's cost
        results = list(
            pool.map(
                lambda args: tensordeck(*args, timeout=40),
                [["validate", str(path)], ["--run", str(path), "--no-doctor"]],
            )
        )
    assert time.monotonic() - started < 25
    for result in results:
        assert_refused(result, path, f"python: {hang} did not answer in 10 s (killed)")
    assert not (tmp_path / "runs").exists()
    left = []
    for proc in psutil.process_iter(["cmdline"]):
        if str(hang) in " ".join(proc.info["cmdline"] or []):
            left.append(proc)
    assert not left, left


def test_a_good_config_still_validates_and_runs(tmp_path):
    path = write_job(tmp_path, GOOD)
    result = tensordeck("validate", str(path))
    assert result.returncode == 0 and f"{path}: ok (1 task" in result.stdout, result.stderr
    assert not (tmp_path / "runs").exists()
    assert tensordeck("--run", str(path)).returncode == 0


# --- open files -----------------------------------------------------------------------------


def _limit_open_files(soft: int, hard: int):
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return limit


@POSIX_ONLY
def test_more_tasks_than_open_files_allow_is_refused(tmp_path):
    data = {**GOOD, **CLUSTER, "tasks": [{"role": "ps"}, {"role": "worker", "count": 100}]}
    path = write_job(tmp_path, data)
    result = tensordeck("--run", str(path), preexec_fn=_limit_open_files(128, 128))
    assert_refused(result, path, "tasks: 101 tasks need about 468 open files", "ulimit -n")
    assert not (tmp_path / "runs").exists()


@POSIX_ONLY
def test_as_many_tasks_as_open_files_allow_run(tmp_path):
    """The estimate is safe: the most tasks the limit admits really run (soft limit raised up
    to the hard one as needed, like here from 64)."""
    data = {**GOOD, **CLUSTER, "tasks": [{"role": "ps"}, {"role": "worker", "count": 15}]}
    path = write_job(tmp_path, data)
    run_dir = tmp_path / "run"
    result = tensordeck(
        "--run", str(path), "--run-dir", str(run_dir), preexec_fn=_limit_open_files(64, 128)
    )
    assert result.returncode == 0, result.stderr
    assert read_summary(run_dir)["status"] == "succeeded"
    assert len(list((run_dir / "logs").iterdir())) == 16


# --- the user's files are sacred ------------------------------------------------------------


def test_a_job_file_named_config_json_in_the_run_dir_is_never_overwritten(tmp_path):
    path = write_job(tmp_path, {**GOOD, "run_dir": "."}, name="config.json")
    (tmp_path / "summary.json").write_text('{"mine": true}')
    before = files_in(tmp_path)
    for args in (["validate", str(path)], ["--run", str(path)], ["--run", str(path), NO_DOCTOR]):
        assert_refused(tensordeck(*args), path, f"run_dir: {tmp_path} is not empty")
    assert files_in(tmp_path) == before


def test_two_launchers_never_share_a_run_folder(tmp_path):
    path = write_job(tmp_path, GOOD)
    (tmp_path / "task.py").write_text("import time; time.sleep(1.5); print('first')\n")
    run_dir = tmp_path / "shared"
    first = subprocess.Popen(
        [sys.executable, "-m", "core", "--run", str(path), "--run-dir", str(run_dir)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (run_dir / "summary.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = tensordeck("--run", str(path), "--run-dir", str(run_dir))
        assert_refused(second, path, f"--run-dir: {run_dir} is not empty")
        _, err = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 0, err
    assert (run_dir / "logs" / "worker-0.log").read_text() == "first\n"
    assert read_summary(run_dir)["status"] == "succeeded"


def test_an_empty_folder_is_claimed_once_and_a_default_name_moves_on(tmp_path):
    """The race validation cannot see: two launchers claim one folder at once. The marker is
    created with O_EXCL, so exactly one gets it; a default name moves on to NAME-2."""
    empty = tmp_path / "empty"
    empty.mkdir()
    assert claim_run_folder(empty) == (empty, False)
    with pytest.raises(RunFolderError, match="in use by another run"):
        claim_run_folder(empty)
    assert claim_run_folder(empty, rename_if_taken=True) == (tmp_path / "empty-2", True)
    assert sorted(os.listdir(empty)) == [MARKER]


def test_a_run_that_takes_the_next_name_tells_its_tasks(tmp_path):
    path = write_job(tmp_path, {**GOOD, "args": ["--out={run_dir}/ckpt"]})
    plan = plan_run(load_config(path), path, base_env={})
    planned = plan.run_dir
    claim_run_folder(planned)  # another launcher, same second, same name
    run = Run(plan, lambda event: None)
    run._events.close()
    assert run.dir == run.plan.run_dir == planned.with_name(planned.name + "-2")
    assert plan.run_dir == planned  # the plan given is left as it was
    task = run.plan.tasks[0]
    assert task.env["TENSORDECK_RUN_DIR"] == str(run.dir)
    assert task.argv[-1] == f"--out={run.dir}/ckpt"
    assert json.loads((run.dir / "config.json").read_text())["run_dir"] == str(run.dir)


def test_a_run_folder_that_cannot_be_written_is_removed(tmp_path, monkeypatch):
    import core.run

    path = write_job(tmp_path, GOOD)
    plan = plan_run(load_config(path), path, run_dir=str(tmp_path / "new"), base_env={})

    def disk_full(*_args) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(core.run, "_write_json", disk_full)
    with pytest.raises(RunFolderError, match="No space left on device"):
        Run(plan, lambda event: None)
    assert not (tmp_path / "new").exists()


@pytest.mark.skipif(IS_WINDOWS, reason="POSIX permissions")
def test_run_folders_are_private(tmp_path):
    path = write_job(tmp_path, {**GOOD, "env": {"API_TOKEN": "s3cret"}})
    run_dir = tmp_path / "run"
    assert tensordeck("--run", str(path), "--run-dir", str(run_dir)).returncode == 0
    mode = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [run_dir, *run_dir.iterdir()]}
    assert mode == {
        "run": 0o700,
        "logs": 0o700,
        "config.json": 0o600,
        "summary.json": 0o600,
        "events.jsonl": 0o600,
        MARKER: 0o600,
    }


# --- fuzz -----------------------------------------------------------------------------------

KEYS = [*sorted(f.name for f in dataclasses.fields(JobConfig)),
        "$schema", "count", "role", "host", "policy"]
#: Short strings of any characters, and of the pieces that break names, shells and terminals.
odd_text = st.lists(
    st.characters()
    | st.sampled_from(["\x00", "\ud800", "\n", "\x1b", "\x9b", "\u2028", "=", "$(id)", "..", "/"]),
    max_size=8,
).map("".join)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**120), max_value=10**120)
    | st.floats(allow_nan=True, allow_infinity=True)
    | odd_text
    | st.sampled_from(["single", "between_graph", "worker", "ps", "chief", "task.py", "."])
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(KEYS) | odd_text, inner, max_size=4),
    max_leaves=20,
)


def group(role: str, most: int = 1) -> st.SearchStrategy:
    return st.fixed_dictionaries(
        {"role": st.just(role)},
        optional={
            "count": st.integers(1, most),
            "port": st.integers(20000, 60000),
            "gpus": st.lists(st.integers(0, 3), max_size=3, unique=True),
            "host": st.sampled_from(["localhost", "127.0.0.2"]),
        },
    ).map(lambda g: {**g, "count": 1} if role == "chief" else g)


#: Configs that load: each of the documented strategies with its task mix and the other keys.
valid_configs = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["job", "x-1", "训练"]),
        "script": st.just("task.py"),
    },
    optional={
        "args": st.lists(
            st.text(st.characters(min_codepoint=32, max_codepoint=126) | st.sampled_from("é训\t"))
        ),
        "env": st.dictionaries(st.from_regex(r"\A[A-Z_]{1,8}\Z"), st.text(max_size=8)),
        "run_dir": st.sampled_from(["out", "runs/x", "~/td-fuzz-never-made"]),
        "stop_grace_seconds": st.floats(0, 100),
        "restart": st.just({"policy": "on_failure", "max_restarts": 2}),
    },
).flatmap(
    lambda base: st.one_of(
        st.just({**base, "strategy": "single"}),
        st.tuples(group("ps"), group("worker", 3)).map(
            lambda t: {**base, "strategy": "between_graph", "tasks": list(t)}
        ),
        st.tuples(group("chief"), group("worker", 2), group("ps")).map(
            lambda t: {**base, "strategy": "parameter_server", "tasks": list(t)}
        ),
    )
)
#: A valid config with up to three keys replaced by anything (nested, odd, huge, unknown).
configs = st.builds(
    lambda base, hostile: {**base, **hostile},
    valid_configs,
    st.dictionaries(st.sampled_from(KEYS) | odd_text, values, max_size=3),
)
#: Whether the JSON text also gives "name" a second time.
duplicate_key = st.sampled_from([False, False, False, True])


def _as_text(data: dict, duplicate: bool) -> str:
    text = json.dumps(data, allow_nan=True)  # NaN and Infinity as json writes them
    return text[:-1] + ', "name": "again"}' if duplicate and len(text) > 2 else text


def _assert_loads_or_refuses(path: Path) -> None:
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        assert exc.problems
        for problem in exc.problems:  # one printable line each
            assert str(problem).isprintable(), str(problem)
        return
    assert isinstance(cfg, JobConfig)
    if any(g.node for g in cfg.tasks):
        return  # planning would connect to the nodes
    try:
        plan = plan_run(cfg, path, base_env={})
    except ConfigError as exc:
        assert exc.problems
    else:
        plan.release_ports()


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=configs, duplicate=duplicate_key)
def test_fuzz_config_loading_refuses_or_accepts_never_crashes(tmp_path, data, duplicate):
    path = write_job(tmp_path, _as_text(data, duplicate))
    _assert_loads_or_refuses(path)
    assert not (tmp_path / "runs").exists()


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_fuzz_raw_bytes_refuses_or_accepts_never_crashes(tmp_path, raw):
    _assert_loads_or_refuses(write_job(tmp_path, raw))


def test_fuzz_parse_config_on_python_data(tmp_path):
    """What the window hands over (parsed data, not text): the same guarantees."""

    @settings(max_examples=300, deadline=None)
    @given(data=configs)
    def check(data):
        try:
            parse_config(data)
        except ConfigError as exc:
            assert exc.problems

    check()


@settings(
    max_examples=24,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=configs, duplicate=duplicate_key)
def test_fuzz_the_cli_validate_exits_0_or_2_without_a_traceback(tmp_path, data, duplicate):
    data = {**data, "python": None}  # never run a generated program name as the interpreter
    if isinstance(data.get("tasks"), list):  # GPUs make the doctor import TensorFlow: seconds
        data["tasks"] = [{**t, "gpus": []} if isinstance(t, dict) else t for t in data["tasks"]]
    path = write_job(tmp_path, _as_text(data, duplicate))
    result = tensordeck("validate", str(path), timeout=60)
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr
    if result.returncode == 2:
        assert result.stderr.splitlines()[-1].startswith("tensordeck: nothing was started")
    assert not (tmp_path / "runs").exists()
