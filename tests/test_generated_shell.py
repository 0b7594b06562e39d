"""Shell text TensorDeck writes runs exactly what the config says and nothing else.

Hostile values (``;``, ``$(...)``, backticks, quotes, line breaks, ``--opt``, ``#``, unicode)
in the job's arguments, variables, folder and name go through the real ``tensordeck export
--slurm`` and ``--commands``; the batch script runs under bash with stub ``srun`` and
``scontrol`` (they only record their arguments and environment), the POSIX blocks under bash
with the real interpreter: no marker file appears, and every value arrives intact. Variable
names that are no identifiers, and #SBATCH values Slurm would split, are refused (exit 2)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.cli import main
from core.config import ConfigError, load_config, parse_config
from core.slurm.batch import sbatch_script
from core.topology import plan_run
from tests.conftest import tensordeck

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or shutil.which("bash") is None,
    reason="runs the generated scripts under bash (the cmd and PowerShell blocks are checked "
           "by tests/test_attacks.py's rules of those shells)",
)

MARKER = "PWN"
FRAGMENTS = [f"; touch {MARKER};", f"$(touch {MARKER})", f"`touch {MARKER}`",
             f"&& touch {MARKER}", f"| touch {MARKER}", f"' ; touch {MARKER} ; '",
             f'" ; touch {MARKER} ; "', f"\\'$(touch {MARKER})", "--mail-user=x@y", "-rf",
             "#", "\\", "$HOME", "${IFS}", "*", "~", "!!", "a b", "’", "中文", "=", "%PATH%"]
_CHARS = st.text(alphabet=" !\"#$%&'()*+,-.;<=>?@[\\]^_`|~aZ0é中’\u00a0", max_size=4)
WORDS = st.lists(st.one_of(st.sampled_from(FRAGMENTS), _CHARS), max_size=4).map("".join)
#: Variable values may span lines (sh and PowerShell carry that); arguments may not (config).
VALUES = st.lists(st.one_of(WORDS, st.just("\n")), max_size=4).map("".join)
#: What a folder name can be (no '/', no control character: the CLI refuses those).
FOLDERS = WORDS.map(lambda w: w.replace("/", "").replace("\\", "") or "f").filter(
    lambda w: w not in (".", "..") and len(w.encode()) < 200)

TASK = """import json, os, sys
names = os.environ["DUMP_NAMES"].split(",")
with open(os.path.join(os.environ["TENSORDECK_RUN_DIR"], os.environ["TENSORDECK_TASK"]
                       .replace(":", "-") + ".json"), "w") as f:
    json.dump({"argv": sys.argv[1:], "env": {n: os.environ.get(n) for n in names}}, f)
"""
SRUN = """#!/bin/sh
f=$(mktemp "$STUB_LOG/srun.XXXXXX")
for a in "$@"; do printf '%s\\0' "$a"; done > "$f.argv"
env -0 > "$f.env"
case " $* " in *" --job-name=tensordeck-ports "*)
  eval "n=\\${$#}"; i=0; out=""
  while [ "$i" -lt "$n" ]; do out="$out $((30000 + i))"; i=$((i + 1)); done
  echo $out;;
esac
"""
STUBS = {"srun": SRUN, "scontrol": "#!/bin/sh\necho node1\n", "sleep": "#!/bin/sh\n"}


def _stubs(folder: Path) -> Path:
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    for name, text in STUBS.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def _cli(*argv: str) -> tuple[int, str]:
    """The real CLI in this process (hypothesis runs many examples); exit code, stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    return code, err.getvalue()


def _write_job(folder: Path, *, name: str = "t", args: list[str], env: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "task.py").write_text(TASK)
    path = folder / "job.json"
    env = {**env, "DUMP_NAMES": ",".join(env)}
    path.write_text(json.dumps({"name": name, "strategy": "multi_worker_mirrored",
                                "script": "task.py", "args": args, "env": env,
                                "tasks": [{"role": "worker", "count": 2}]}))
    return path


def _calls(log: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The stub srun's calls by step name (--job-name): its arguments and environment."""
    calls = {}
    for argv_file in log.glob("*.argv"):
        argv = argv_file.read_bytes().decode().split("\0")[:-1]
        env_items = argv_file.with_suffix(".env").read_bytes().decode().split("\0")[:-1]
        env = dict(item.split("=", 1) for item in env_items)
        name = next(a for a in argv if a.startswith("--job-name=")).split("=", 1)[1]
        calls[name] = (argv, env)
    return calls


def _run_batch(script: Path, root: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    log, submit = root / "log", root / "submit"
    log.mkdir()
    submit.mkdir()
    env = {"PATH": f"{_stubs(root)}:/usr/bin:/bin", "SLURM_JOB_ID": "42",
           "SLURM_JOB_NODELIST": "node1", "SLURM_SUBMIT_DIR": str(submit), "STUB_LOG": str(log)}
    done = subprocess.run(["bash", str(script)], env=env, cwd=submit, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return _calls(log)


def _planted(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name == MARKER]


def _check_tasks(calls: dict, python: str, script: Path, args: list[str],
                 env: dict[str, str]) -> None:
    """Each worker's step ran its command with every value intact, its TF_CONFIG the cluster."""
    assert sorted(calls) == ["tensordeck-ports", "worker-0", "worker-1"]
    for index in (0, 1):
        argv, seen = calls[f"worker-{index}"]
        assert argv[argv.index(python):] == [python, str(script), *args]
        assert {k: seen.get(k) for k in env} == env
        tf_config = json.loads(seen["TF_CONFIG"])
        assert tf_config == {"cluster": {"worker": ["node1:30000", "node1:30001"]},
                             "task": {"type": "worker", "index": index}}


#: Variable names: identifiers (V_ first: no PATH) or anything else, which must be refused.
_IDENTIFIERS = st.from_regex(r"V_[A-Za-z0-9_]{0,5}", fullmatch=True)
NAMES = st.one_of(_IDENTIFIERS, _IDENTIFIERS, WORDS)


def _identifier(name: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(folder=FOLDERS, args=st.lists(WORDS, max_size=3),
       env=st.dictionaries(NAMES, VALUES, min_size=1, max_size=3))
@example(folder=f"x$(touch {MARKER})", args=[f"a;touch {MARKER}", "--x", "`id`"],
         env={"V_A": f"line one\n$(touch {MARKER})", "V_B": "it's"})
@example(folder="x", args=[], env={f"X;touch {MARKER};Y": "1"})
def test_the_batch_script_runs_hostile_values_as_plain_data(folder, args, env):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        job = _write_job(root / folder, args=args, env=env)
        out = root / "job.sbatch"
        code, err = _cli("export", str(job), "--slurm", str(out))
        if not all(map(_identifier, env)):
            assert code == 2 and "is not a valid variable name" in err, err
            assert not out.exists()
            return
        assert code == 0, err
        calls = _run_batch(out, root)
        assert _planted(root) == []
        _check_tasks(calls, sys.executable, job.parent / "task.py", args,
                     {**env, "DUMP_NAMES": ",".join(env)})


FENCE = re.compile(r"^### (\S+?)(?::[^\n]*)?$|^(`{3,})sh\n(.*?)\n\2$", re.S | re.M)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(folder=FOLDERS, args=st.lists(WORDS, max_size=3),
       values=st.lists(VALUES, min_size=1, max_size=3))
def test_the_posix_command_blocks_run_hostile_values_as_plain_data(folder, args, values):
    env = {f"V{i}": value for i, value in enumerate(values)}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        job = _write_job(root / folder, args=args, env=env)
        out = root / "commands.md"
        code, err = _cli("export", str(job), "--commands", str(out))
        assert code == 0, err
        blocks = [m.group(3) for m in FENCE.finditer(out.read_text(encoding="utf-8"))
                  if m.group(3) is not None]
        assert len(blocks) == 2
        for block in blocks:
            subprocess.run(["bash", "-c", block], cwd=root, check=True, timeout=60,
                           capture_output=True)
        assert _planted(root) == []
        run_dir = next((job.parent / "runs").iterdir())
        for index in (0, 1):
            got = json.loads((run_dir / f"worker-{index}.json").read_text())
            assert got["argv"] == args
            assert {k: got["env"][k] for k in env} == env


def test_placeholders_become_the_tasks_values_inside_quoted_words(tmp_path):
    args = ["--i={task_index}", "{run_dir}/x y", "it's {job_name}"]
    job = _write_job(tmp_path / "job", args=args, env={"A": "1"})
    out = tmp_path / "job.sbatch"
    assert _cli("export", str(job), "--slurm", str(out))[0] == 0
    calls = _run_batch(out, tmp_path)
    argv = calls["worker-1"][0]
    run_dir = tmp_path / "submit" / "runs" / "slurm-42"
    assert argv[-3:] == ["--i=1", f"{run_dir}/x y", "it's worker"]


def test_a_line_break_in_the_config_path_stays_in_its_comment(tmp_path):
    """The CLI refuses such a path; the script's own rule holds without that door."""
    folder = tmp_path / f"a\ntouch {MARKER}\n#"
    job = _write_job(folder, args=["x"], env={"A": "1"})
    plan = plan_run(load_config(job), job)
    plan.release_ports()
    script = tmp_path / "job.sbatch"
    script.write_text(sbatch_script(plan, str(job)))
    assert [line for line in script.read_text().splitlines() if "job.json" in line] == [
        f"# Made by `tensordeck export --slurm` from '{tmp_path}/a\\x0atouch {MARKER}\\x0a#/"
        "job.json': submit with sbatch."]
    calls = _run_batch(script, tmp_path)
    assert _planted(tmp_path) == []
    _check_tasks(calls, sys.executable, folder / "task.py", ["x"], {"A": "1"})


BAD_NAMES = ["X;touch F;Y", f"$(touch {MARKER})", "A B", "A-B", "1A", "A=B", "", "Ä", "A\nB",
             "PROGRAMFILES(X86)"]


@settings(max_examples=60, deadline=None)
@given(name=st.one_of(st.sampled_from(BAD_NAMES), st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
    max_size=8)))  # a NUL or a lone surrogate has its own message (test_hostile_input.py)
def test_a_variable_name_that_is_no_identifier_is_refused(name):
    data = {"name": "t", "strategy": "single", "script": "task.py", "env": {name: "1"}}
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return  # an identifier (TF_CONFIG and TENSORDECK_* have their own message)
    with pytest.raises(ConfigError) as refused:
        parse_config(data)
    assert "is not a valid variable name: use letters, digits and '_'" in str(refused.value)


@pytest.mark.parametrize("name", ["X;touch PWN;Y", "$(touch PWN)"])
@pytest.mark.parametrize("command", [("validate",), ("export", "--slurm"),
                                     ("export", "--commands")])
def test_every_command_refuses_a_variable_name_no_shell_can_set(name, command, tmp_path):
    job = tmp_path / "job.json"
    (tmp_path / "task.py").write_text("")
    job.write_text(json.dumps({"name": "t", "strategy": "single", "script": "task.py",
                               "env": {name: "1"}}))
    out = [str(tmp_path / "out")] if command[0] == "export" else []
    result = tensordeck(command[0], str(job), *command[1:], *out)
    assert result.returncode == 2, result.stderr
    assert f"env: '{name}' is not a valid variable name" in result.stderr
    assert "no shell can export such a name" in result.stderr
    assert sorted(os.listdir(tmp_path)) == ["job.json", "task.py"]  # nothing written


@pytest.mark.parametrize(
    ("slurm", "name", "where"),
    [({}, "my job --mail-user=x", "name"), ({}, "a'b", "name"), ({}, "a#b", "name"),
     ({"extra_sbatch": ["--comment=a b"]}, "t", "slurm.extra_sbatch[0]"),
     ({"extra_sbatch": ["--comment=x#y"]}, "t", "slurm.extra_sbatch[0]")],
)
def test_an_sbatch_value_slurm_would_split_is_refused_naming_the_field(slurm, name, where,
                                                                      tmp_path):
    job = tmp_path / "job.json"
    (tmp_path / "task.py").write_text("")
    job.write_text(json.dumps({"name": name, "strategy": "single", "script": "task.py",
                               "slurm": slurm}))
    result = tensordeck("export", str(job), "--slurm", str(tmp_path / "out.sbatch"))
    assert result.returncode == 2, result.stderr
    assert f"{where}: " in result.stderr and "Slurm cannot take it in an #SBATCH line" in \
        result.stderr
    assert not (tmp_path / "out.sbatch").exists()


@given(name=WORDS.map(lambda n: re.sub(r'[\\/:*?"<>|]', "", n).strip()[:64]).filter(bool))
@settings(max_examples=40, deadline=None)
def test_a_job_name_is_one_sbatch_word_or_refused(name):
    from core.slurm.launch import sbatch_word_problem

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        job = _write_job(root / "job", name=name, args=[], env={"A": "1"})
        try:
            load_config(job)
        except ConfigError:
            return  # the config's own rule for names (no / : * ? " < > |)
        out = root / "job.sbatch"
        code, err = _cli("export", str(job), "--slurm", str(out))
        if sbatch_word_problem(name) is not None:
            assert code == 2 and "name: " in err and not out.exists(), err
            return
        assert code == 0, err
        lines = out.read_text(encoding="utf-8").splitlines()
        assert f"#SBATCH --job-name={name}" in lines
        assert not re.search(r"[\s'\"\\#]", name)
