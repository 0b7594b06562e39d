"""Hostile names and places for TensorDeck's files: folder names that would inject commands into
the orphan watchdog's protocol, control characters in any path TensorDeck takes, folders and
names that other users prepared, and a disk that fills up at the very end of a run.

The rows of docs/reliability.md for these cases point at these tests."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from core.fsio import write_private
from core.proctree import WATCHDOG_CODE, Watchdog
from tests.conftest import read_summary, tensordeck

IS_WINDOWS = sys.platform == "win32"
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"),
                           reason="the watchdog finds escaped processes in Linux's /proc")
POSIX = pytest.mark.skipif(IS_WINDOWS, reason="POSIX permissions and process groups")
AS_ROOT = pytest.mark.skipif(IS_WINDOWS or os.geteuid() != 0,
                             reason="needs root: chown to another user, mount a tmpfs")
JOB = {"name": "t", "strategy": "single", "script": "task.py",
       "env": {"HF_TOKEN": "hf_s3cret"}}
#: Every character TensorDeck refuses in a path (C0 but TAB and NUL, DEL, C1, the Unicode line
#: separators and bidi controls); NUL cannot be in an argument at all.
CONTROLS = [chr(c) for c in (*range(0x01, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0),
                             0x2028, 0x2029, 0x202E, 0x2066)]
#: Text a folder can be named with on POSIX (no NUL, no lone surrogates: an environment
#: variable holds the folder's bytes, and argv has no NUL).
name_text = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
                    max_size=12)
#: Bytes of a POSIX file name that are not UTF-8 (Python shows them as lone surrogates).
raw_bytes = st.binary(max_size=6).map(lambda b: os.fsdecode(b.replace(b"\x00", b"")))
#: Names Windows keeps for devices, whatever the extension.
WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL",
                   *(f"{port}{n}" for port in ("COM", "LPT") for n in range(10))}
FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def write_job(folder: Path, **fields) -> Path:
    (folder / "task.py").write_text(fields.pop("task", "print('trained')\n"))
    path = folder / "job.json"
    path.write_text(json.dumps({**JOB, **fields}))
    return path


def files_in(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# --- the orphan watchdog's protocol ------------------------------------------------------------


def sleeper(**env: str) -> subprocess.Popen:
    """A process in a session (and group) of its own, with ``env`` as its whole environment."""
    return subprocess.Popen(["sleep", "600"], env=env, start_new_session=True)


def end_watchdog(watchdog: Watchdog) -> int:
    """What TensorDeck's death does to its watchdog: stdin closes; it does its work and exits."""
    watchdog.close()
    return watchdog._proc.wait(timeout=30)


@LINUX
@FAST
@given(before=name_text | raw_bytes, after=name_text | raw_bytes)
@example(before="run", after="")
@example(before="/tmp/a\nb", after="\u2028\x1b[2J+9")
def test_the_watchdog_gets_exactly_the_run_folder_and_kills_nothing_else(before, after):
    """A folder named ``run<LF>+PGID<LF>...`` once made the watchdog SIGKILL an unrelated group
    (and a line break crashed it at every tick). The frames carry the folder whole: the task
    whose environment names exactly that folder is killed, the process whose folder is a piece
    of it and the unrelated group survive."""
    victim = sleeper()
    run_dir = f"{before}\n+{victim.pid}\n-{victim.pid}\nr{after}"
    task = sleeper(TENSORDECK_RUN_DIR=run_dir)
    neighbour = sleeper(TENSORDECK_RUN_DIR=before)  # what a cut at the line break would name
    watchdog = Watchdog()
    try:
        watchdog.watch_run(run_dir)
        assert end_watchdog(watchdog) == 0
        assert task.wait(timeout=30) == -signal.SIGKILL
        assert victim.poll() is None and neighbour.poll() is None
    finally:
        for proc in (victim, task, neighbour):
            proc.kill()
            proc.wait()


NOT_FRAMES = [b"\xff\xfe\n", b"+123\n", b"r/tmp/x\n", b"{\n", b"null\n", b"[]\n", b"[1, 2, 3]\n",
              b'{"watch": 5}\n', b'["watch", 0]\n', b'["watch", -7]\n', b'["watch", true]\n',
              b'["watch", 1e3]\n', b'["watch", "12"]\n', b'["watch", 1' + b"0" * 400 + b"]\n",
              b'["run", 5]\n', b'["run", "\\ud800"]\n', b'["kill", 2]\n', b"\n", b"x" * 70000]


@POSIX
@FAST
@given(garbage=st.lists(st.sampled_from(NOT_FRAMES) | st.binary(max_size=40), max_size=8))
def test_the_watchdog_skips_what_is_not_a_frame_and_still_does_its_work(garbage):
    """No input ends the watchdog early (a crash meant it was restarted every 0.3 s and a
    killed launcher left its tasks behind): after any bytes, a task group registered before
    and after them is still killed when TensorDeck is gone."""
    first, last = sleeper(), sleeper()
    watchdog = subprocess.Popen([sys.executable, "-I", "-S", "-c", WATCHDOG_CODE],
                                stdin=subprocess.PIPE, start_new_session=True)
    try:
        frames = [json.dumps(["watch", first.pid]).encode() + b"\n", *garbage, b"\n",
                  json.dumps(["watch", last.pid]).encode() + b"\n"]
        watchdog.communicate(b"".join(frames), timeout=30)
        assert watchdog.returncode == 0
        assert first.wait(timeout=30) == -signal.SIGKILL
        assert last.wait(timeout=30) == -signal.SIGKILL
    finally:
        for proc in (first, last, watchdog):
            proc.kill()
            proc.wait()


# --- control characters at the door --------------------------------------------------------------

#: Every option of the CLI that takes a path or a name (its label in the message), with the
#: rest of a command around it (X: the value; JOB: a good job file).
DOOR = [
    ("--run", ["--run", "X"]),
    ("FILE", ["run", "X"]),
    ("FILE", ["validate", "X"]),
    ("FILE", ["export", "X", "--commands", "-"]),
    ("FILE", ["preflight", "X"]),
    ("FILE", ["gui", "X"]),
    ("--run-dir", ["--run", "JOB", "--run-dir", "X"]),
    ("--run-dir", ["run", "JOB", "--run-dir", "X"]),
    ("--kubeflow", ["export", "JOB", "--kubeflow", "X"]),
    ("--commands", ["export", "JOB", "--commands", "X"]),
    ("--slurm", ["export", "JOB", "--slurm", "X"]),
    ("--image", ["export", "JOB", "--kubeflow", "-", "--image", "X"]),
    ("--python", ["doctor", "--no-import", "--python", "X"]),
    ("--explain", ["doctor", "--explain", "X"]),
    ("--tf-version", ["doctor", "--tf-version", "X"]),
    ("--path", ["env", "create", "--dry-run", "--path", "X"]),
    ("--python", ["env", "create", "--dry-run", "--python", "X"]),
    ("--slurm-login", ["--run", "JOB", "--slurm", "--slurm-login", "X"]),
    ("NODE", ["login", "JOB", "X"]),
    ("HOST", ["trust", "X"]),
]
NAMES = {"--image", "--slurm-login", "NODE", "HOST", "--tf-version"}


@pytest.mark.parametrize(("option", "command"), DOOR, ids=[" ".join(c) for _, c in DOOR])
@settings(FAST, max_examples=4)
@given(head=name_text, control=st.sampled_from(CONTROLS), tail=name_text)
def test_a_control_character_in_any_path_or_name_is_refused_at_the_door(
    tmp_path_factory, option, command, head, control, tail
):
    """Exit 2 with one line naming the option, before anything is read or made."""
    folder = tmp_path_factory.mktemp("door")
    job = write_job(folder)
    value = head + control + tail
    if option not in NAMES:
        value = str(folder / value)
    args = [{"X": value, "JOB": str(job)}.get(a, a) for a in command]
    before = files_in(folder)
    result = tensordeck(*args, timeout=60)
    assert result.returncode == 2, (args, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"tensordeck: {option}: "), result.stderr
    assert "contains the control character " in lines[0]
    assert lines[1] == "tensordeck: nothing was started."
    assert files_in(folder) == before


@POSIX
@FAST
@given(head=name_text.filter(lambda t: "/" not in t), control=st.sampled_from(CONTROLS))
def test_a_config_in_a_folder_named_with_a_control_character_is_refused(
    tmp_path_factory, head, control
):
    """The config's folder becomes the run folder's (and reaches the watchdog and the logs):
    refused by its path, and by the current folder when the path is relative."""
    folder = tmp_path_factory.mktemp("cfg") / f"{head}{control}x"
    folder.mkdir()
    job = write_job(folder)
    before = files_in(folder)
    for args, cwd, option in ((["--run", str(job)], None, "--run"),
                              (["run", "job.json"], folder, "FILE"),
                              (["validate", "job.json"], folder, "FILE")):
        result = tensordeck(*args, cwd=cwd or folder.parent, timeout=60)
        assert result.returncode == 2, result.stderr
        first, last = result.stderr.splitlines()
        assert first.startswith(f"tensordeck: {option}: "), first
        assert "control character" in first and last == "tensordeck: nothing was started."
    assert files_in(folder) == before


# --- files made private, never through a prepared name --------------------------------------------


@POSIX
def test_a_claimed_folder_is_made_private_and_no_planted_name_is_written_through(tmp_path):
    """An empty 0777 folder given as --run-dir is made 0700 before anything goes in it. The
    old fixed temporary names (``summary.json.tmp``, ``config.json.tmp``) planted as symlinks
    to a file of the user's, while the run goes, are never written through."""
    victim = tmp_path / "bashrc"
    victim.write_text("the user's own file\n")
    run_dir = tmp_path / "shared"
    run_dir.mkdir()
    os.chmod(run_dir, 0o777)
    plant = (
        "import os\n"
        "d = os.environ['TENSORDECK_RUN_DIR']\n"
        "for name in ('summary.json.tmp', 'config.json.tmp', 'events.jsonl.tmp'):\n"
        f"    os.symlink({str(victim)!r}, os.path.join(d, name))\n"
        "print('planted')\n"
    )
    job = write_job(tmp_path, task=plant)
    result = tensordeck("--run", str(job), "--run-dir", str(run_dir), "--no-doctor")
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "the user's own file\n"
    assert mode(run_dir) == 0o700
    assert read_summary(run_dir)["status"] == "succeeded"
    made = [p for p in run_dir.rglob("*") if not p.is_symlink()]
    assert {p.name: mode(p) for p in made} == {
        ".tensordeck-run": 0o600, "config.json": 0o600, "summary.json": 0o600,
        "events.jsonl": 0o600, "logs": 0o700, "worker-0.log": 0o600,
    }


@AS_ROOT
def test_an_empty_folder_of_another_user_is_refused_and_left_as_it_was(tmp_path):
    """Another user's empty folder is not taken, not even by root, who could write in it: its
    owner could swap what the run writes there. validate refuses it as --run does, and its
    mode is left as it was."""
    theirs = tmp_path / "theirs"
    job = write_job(tmp_path, run_dir=str(theirs))
    theirs.mkdir()
    os.chmod(theirs, 0o777)
    os.chown(theirs, 65534, 65534)
    for args in (["validate", str(job)], ["--run", str(job), "--no-doctor"],
                 ["--run", str(job), "--run-dir", str(theirs)]):
        result = tensordeck(*args)
        assert result.returncode == 2, result.stderr
        assert f"{theirs} belongs to another user (uid 65534)" in result.stderr
        assert "choose a folder of your own" in result.stderr
    assert os.listdir(theirs) == [] and mode(theirs) == 0o777


@POSIX
@pytest.mark.parametrize("target", ["--commands", "--kubeflow", "--slurm"])
def test_exports_that_hold_the_env_are_private(tmp_path, target):
    """The exports write HF_TOKEN in plain text: 0600, also over a 0644 file that was there."""
    job = write_job(tmp_path)
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    os.chmod(out, 0o644)
    result = tensordeck("export", str(job), target, str(out))
    assert result.returncode == 0, result.stderr
    assert "hf_s3cret" in out.read_text() and mode(out) == 0o600
    assert sorted(os.listdir(tmp_path)) == sorted(["job.json", "task.py", "out.txt"] +
                                                  (["runs"] if target == "--commands" else []))


@POSIX
def test_cached_checked_configs_are_private(tmp_path):
    """A checked config in the user's cache holds the job's environment."""
    job = write_job(tmp_path)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert tensordeck("validate", str(job), env=env).returncode == 0
    entries = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert entries and {mode(p) for p in entries} == {0o600}
    assert all(not p.name.endswith(".tmp") for p in entries)


@given(name=st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
                    min_size=1, max_size=60),
       data=st.binary(max_size=300))
@FAST
def test_write_private_writes_whole_private_files_with_any_name(tmp_path_factory, name, data):
    """Whatever the name (on POSIX up to the longest the OS takes, for which the old
    ``NAME.tmp`` was too long), the file holds the data, is 0600, and nothing else is left in
    its folder."""
    if IS_WINDOWS:
        assume(name.isprintable() and name.strip(". ") == name)
        assume(not any(c in name for c in '\\:*?"<>|'))
        assume(name.split(".")[0].upper() not in WINDOWS_DEVICES)
    else:
        assume(name not in (".", "..") and len(name.encode()) <= 255)
        name *= 255 // len(name.encode())
    folder = tmp_path_factory.mktemp("w")
    target = folder / name
    write_private(target, b"old")
    write_private(target, data)
    assert target.read_bytes() == data
    assert os.listdir(folder) == [name]
    if not IS_WINDOWS:
        assert mode(target) == 0o600


@POSIX
@pytest.mark.parametrize("kind", ["link", "folder", "fifo"])
def test_an_export_over_a_link_a_folder_or_a_device_writes_nothing(tmp_path, kind):
    """OUT is replaced whole: a symlink there (to a file of the user's) would have been written
    through, a device or a folder replaced. Refused (exit 1) naming the fix; nothing changes."""
    job = write_job(tmp_path)
    victim = tmp_path / "bashrc"
    victim.write_text("the user's own file\n")
    out = tmp_path / "out.md"
    {"link": lambda: out.symlink_to(victim), "folder": out.mkdir,
     "fifo": lambda: os.mkfifo(out)}[kind]()
    before = files_in(tmp_path)
    result = tensordeck("export", str(job), "--commands", str(out))
    assert result.returncode == 1, result.stderr
    assert f"cannot write {out}: it is not a regular file" in result.stderr
    assert "or - for stdout" in result.stderr
    assert files_in(tmp_path) == before and os.path.lexists(out)


def test_the_window_saves_a_new_config_private_and_keeps_an_old_ones_mode(qtbot, tmp_path):
    """A config can hold tokens: a new one is 0600. One that was there keeps the mode its user
    gave it (a config shared with a group stays shared)."""
    from gui.views.cluster import ClusterView

    view = ClusterView()
    qtbot.addWidget(view)
    write_job(tmp_path)
    view.load(JOB, None)
    new = view.save(tmp_path / "new.json")
    old = tmp_path / "job.json"
    os.chmod(old, 0o640)
    view.save(old)
    assert json.loads(old.read_text())["env"] == JOB["env"]
    if not IS_WINDOWS:
        assert (mode(new), mode(old)) == (0o600, 0o640)
    assert sorted(os.listdir(tmp_path)) == ["job.json", "new.json", "task.py"]


# --- a disk that fills up at the very end ---------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs: a disk that really fills up."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs Linux and root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


FILL = (
    "import os\n"
    "d = os.environ['TENSORDECK_RUN_DIR']\n"
    "{before}"
    "print('trained', flush=True)\n"
    "try:\n"
    "    with open(os.path.join(os.path.dirname(d), 'filler'), 'wb') as f:\n"
    "        while True:\n"
    "            f.write(b'x' * 65536)\n"
    "            f.flush()\n"
    "except OSError as exc:\n"
    "    assert exc.errno == 28, exc\n"
)


def test_a_run_that_fills_the_disk_at_its_end_still_writes_its_last_summary(tmp_path,
                                                                             small_disk):
    """The task fills the disk, then exits 0: the room kept for the last summary holds it, so
    the summary says succeeded (not running), exit 0, and no temporary file is left."""
    job = write_job(tmp_path, task=FILL.format(before=""))
    run_dir = small_disk / "run"
    result = tensordeck("--run", str(job), "--run-dir", str(run_dir), "--no-doctor")
    assert result.returncode == 0, result.stderr
    assert read_summary(run_dir)["status"] == "succeeded"
    assert not [p for p in run_dir.rglob("*") if p.name.endswith(".tmp")]


def test_a_last_summary_that_cannot_be_written_is_said_and_fails_the_run(tmp_path, small_disk):
    """A task that removes every temporary file of its run folder, then fills the disk: the
    last summary cannot be written; the run says so in its last line and exits 1, never 0, and
    leaves no temporary file."""
    remove = ("for name in os.listdir(d):\n"
              "    if name.endswith('.tmp'):\n"
              "        os.remove(os.path.join(d, name))\n")
    job = write_job(tmp_path, task=FILL.format(before=remove))
    run_dir = small_disk / "run"
    result = tensordeck("--run", str(job), "--run-dir", str(run_dir), "--no-doctor")
    assert result.returncode == 1, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("tensordeck: t failed in "), result.stderr
    assert f"{run_dir / 'summary.json'} could not be written" in last
    assert "so it still says running" in last
    assert read_summary(run_dir)["status"] == "running"
    assert not [p for p in run_dir.rglob("*") if p.name.endswith(".tmp")]
