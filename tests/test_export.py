"""``tensordeck export``: TFJob manifests (validated, real YAML) and hand-start command lines
(run for real in ``sh``; cmd and PowerShell quoting checked on tricky strings)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES

from core.config import Node, load_config, parse_config
from core.export import (
    POD_RUN_DIR,
    cmd_escape,
    cmd_lines,
    commands_markdown,
    kubernetes_name,
    posix_lines,
    powershell_lines,
    tfjob,
    to_yaml,
    validate_tfjob,
)
from core.export_command import export_command
from core.shellwords import quote
from core.topology import plan_run

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))
TRICKY = [
    "a b",
    "it's",
    'say "hi"',
    "100%",
    "%PATH%",
    "$HOME",
    "`id`",
    "$(echo no)",
    "a&b",
    "x^y",
    "wow!",
    "back\\slash\\",
    "semi;colon|pipe<in>out",
    "",
    "*",
    "~",
    "tab\there",
    "üñï 中文",
    "-n",
    "new\nline",
]


def export(file: Path, **kwargs: str | None) -> int:
    args = {"file": str(file), "kubeflow": None, "commands": None, "image": None, **kwargs}
    return export_command(argparse.Namespace(**args))


def config(**fields: object) -> object:
    data = {"name": "t", "strategy": "between_graph", "script": "train.py", **fields}
    data.setdefault("tasks", [{"role": "ps"}, {"role": "worker", "count": 2}])
    return parse_config(data)


# --- TFJob -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_examples_export_valid_tfjobs(path: Path) -> None:
    cfg = load_config(path)
    manifest = tfjob(cfg).manifest
    assert validate_tfjob(manifest) == []
    specs = manifest["spec"]["tfReplicaSpecs"]
    expected = {
        "quickstart": {"Chief": 1, "Worker": 2, "PS": 1},
        "between_graph": {"PS": 1, "Worker": 2},
        "multi_worker": {"Worker": 2},
        "mirrored": {"Worker": 1},
    }[path.stem]
    assert {k: v["replicas"] for k, v in specs.items()} == expected
    # As a local run restarts: parameter_server workers on failure, everything else never.
    restarts = {k: v["restartPolicy"] for k, v in specs.items()}
    ps_workers = "OnFailure" if cfg.strategy == "parameter_server" else "Never"
    assert restarts == {k: ps_workers if k == "Worker" else "Never" for k in expected}
    limit = manifest["spec"]["runPolicy"]["backoffLimit"]
    assert limit == (cfg.restart_for("worker", 0).max_restarts if ps_workers == "OnFailure" else 0)
    for spec in specs.values():
        (container,) = spec["template"]["spec"]["containers"]
        assert container["name"] == "tensorflow"
        assert container["command"] == ["python", cfg.script]
        assert container["ports"] == [{"name": "tfjob-port", "containerPort": 2222}]
        env = {e["name"]: e["value"] for e in container["env"]}
        assert cfg.env.items() <= env.items()


def test_command_writes_yaml_and_json_that_parse_back(tmp_path: Path) -> None:
    import yaml  # PyYAML: a test-only dependency, the real parser the output must satisfy

    src = EXAMPLES / "quickstart.json"
    assert export(src, kubeflow=str(tmp_path / "job.yaml"), image="reg.local/tf:2.15") == 0
    assert export(src, kubeflow=str(tmp_path / "job.json"), image="reg.local/tf:2.15") == 0
    from_yaml = yaml.safe_load((tmp_path / "job.yaml").read_text(encoding="utf-8"))
    from_json = json.loads((tmp_path / "job.json").read_text(encoding="utf-8"))
    assert from_yaml == from_json == tfjob(load_config(src), image="reg.local/tf:2.15").manifest
    assert (tmp_path / "job.yaml").read_text().startswith("# TFJob made by `tensordeck export`")


def test_between_graph_drops_cluster_args_and_says_why() -> None:
    cfg = config(
        args=[
            "--job_name",
            "{job_name}",
            "--task_index={task_index}",
            "--steps",
            "5",
            "--ps_hosts",
            "{ps_hosts}",
            "--out",
            "{run_dir}/ckpt",
        ],
    )
    export_ = tfjob(cfg)
    specs = export_.manifest["spec"]["tfReplicaSpecs"]
    assert set(specs) == {"PS", "Worker"}
    container = specs["Worker"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["--steps", "5", "--out", f"{POD_RUN_DIR}/ckpt"]
    notes = " ".join(export_.notes)
    assert "TF_CONFIG" in notes and "wrapper" in notes
    assert "--job_name {job_name} --task_index={task_index}" in notes


def test_multi_worker_without_chief_is_workers_only_with_gpus_and_restarts() -> None:
    cfg = config(
        strategy="multi_worker_mirrored",
        tasks=[{"role": "worker", "count": 3, "gpus": [0, 1]}],
        restart={"policy": "on_failure", "max_restarts": 3},
        stop_grace_seconds=2.5,
    )
    manifest = tfjob(cfg).manifest
    (replica_type,) = manifest["spec"]["tfReplicaSpecs"]
    spec = manifest["spec"]["tfReplicaSpecs"][replica_type]
    assert replica_type == "Worker" and spec["replicas"] == 3
    assert spec["restartPolicy"] == "OnFailure"
    assert manifest["spec"]["runPolicy"]["backoffLimit"] == 3
    assert spec["template"]["spec"]["terminationGracePeriodSeconds"] == 3
    container = spec["template"]["spec"]["containers"][0]
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 2}}


def test_unequal_gpu_counts_ask_for_the_largest_and_say_so() -> None:
    cfg = config(
        tasks=[
            {"role": "ps", "gpus": []},
            {"role": "worker", "gpus": [0]},
            {"role": "worker", "gpus": [1, 2]},
        ]
    )
    export_ = tfjob(cfg)
    specs = export_.manifest["spec"]["tfReplicaSpecs"]
    assert specs["Worker"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"nvidia.com/gpu": 2}
    }
    assert "resources" not in specs["PS"]["template"]["spec"]["containers"][0]
    assert any("different GPU counts" in n for n in export_.notes)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("between_graph", "between-graph"),
        ("My Job 2", "my-job-2"),
        ("2024 run!", "job-2024-run"),
        ("___", "job"),
        ("x" * 64, "x" * 63),
    ],
)
def test_kubernetes_name(name: str, expected: str) -> None:
    assert kubernetes_name(name) == expected
    assert validate_tfjob(tfjob(config(name=name)).manifest) == []


def _valid() -> dict:
    return tfjob(load_config(EXAMPLES / "quickstart.json")).manifest


def _break_two_chiefs(doc: dict) -> None:
    doc["spec"]["tfReplicaSpecs"]["Chief"]["replicas"] = 2


def _break_chief_and_master(doc: dict) -> None:
    doc["spec"]["tfReplicaSpecs"]["Master"] = doc["spec"]["tfReplicaSpecs"]["Chief"]


def _break_two_evaluators(doc: dict) -> None:
    doc["spec"]["tfReplicaSpecs"]["Evaluator"] = {
        **doc["spec"]["tfReplicaSpecs"]["Worker"],
        "replicas": 2,
    }


def _break_restart_policy(doc: dict) -> None:
    doc["spec"]["tfReplicaSpecs"]["Worker"]["restartPolicy"] = "on_failure"


def _containers(doc: dict) -> list[dict]:
    return doc["spec"]["tfReplicaSpecs"]["PS"]["template"]["spec"]["containers"]


def _break_container_name(doc: dict) -> None:
    _containers(doc)[0]["name"] = "main"


def _break_image(doc: dict) -> None:
    del _containers(doc)[0]["image"]


def _break_no_containers(doc: dict) -> None:
    _containers(doc).clear()


def _break_replica_specs(doc: dict) -> None:
    doc["spec"]["tfReplicaSpecs"] = {}


def _break_unknown_type(doc: dict) -> None:
    doc["spec"]["tfReplicaSpecs"]["Workers"] = doc["spec"]["tfReplicaSpecs"].pop("Worker")


def _break_name(doc: dict) -> None:
    doc["metadata"]["name"] = "Quick_Start"


def _break_backoff(doc: dict) -> None:
    doc["spec"]["runPolicy"]["backoffLimit"] = "3"


@pytest.mark.parametrize(
    ("breaker", "where"),
    [
        (_break_two_chiefs, "Chief.replicas"),
        (_break_chief_and_master, "at most one Chief or Master"),
        (_break_two_evaluators, "Evaluator.replicas"),
        (_break_restart_policy, "Worker.restartPolicy"),
        (_break_container_name, "named 'tensorflow'"),
        (_break_image, "containers[0].image"),
        (_break_no_containers, "PS.template.spec.containers"),
        (_break_replica_specs, "spec.tfReplicaSpecs"),
        (_break_unknown_type, "tfReplicaSpecs.Workers"),
        (_break_name, "metadata.name"),
        (_break_backoff, "backoffLimit"),
    ],
    ids=lambda v: getattr(v, "__name__", "")[7:],
)
def test_validate_tfjob_catches_broken_documents(breaker, where: str) -> None:
    doc = _valid()
    breaker(doc)
    problems = validate_tfjob(doc)
    assert len(problems) == 1 and where in problems[0], problems


def test_yaml_round_trips_tricky_scalars() -> None:
    import yaml  # PyYAML: a test-only dependency, the real parser the output must satisfy

    odd = [
        "yes",
        "No",
        "ON",
        "y",
        "null",
        "~",
        "1",
        "1.5",
        "0x1F",
        "1e3",
        "+1",
        ".inf",
        "-",
        "- a",
        ": x",
        "a: b",
        "#c",
        "a #b",
        "'",
        '"',
        "\\",
        "\t",
        "\r\n",
        "\x7f",
        "\x00",
        "\u2028",
        "\x85",
        "\ufeff",
        "😀",
        "",
        " lead",
        "trail ",
        "@x",
        "`x",
        "%x",
        "!x",
        "&x",
        "*x",
        "|",
        ">",
        "[",
        "{",
        "?",
        "2024-01-01",
        "<<",
        "=",
        *TRICKY,
    ]
    doc = {
        "strings": odd,
        "keys": {s: s for s in odd if s},
        "nested": [[1, [True, False]], {"a": [], "b": {}}, None, [{"x": 0, "y": [-1]}]],
        "empty_list": [],
        "empty_map": {},
    }
    text = to_yaml(doc, ["comment", "two\nlines"])
    assert yaml.safe_load(text) == doc
    assert text.startswith("# comment\n# two\n# lines\n")


# --- commands ----------------------------------------------------------------------------------

DUMP = (
    "import json, os, sys; "
    "print(json.dumps({'env': {k: os.environ.get(k) for k in sys.argv[1].split(',')}, "
    "'argv': sys.argv[2:]}))"
)


needs_sh = pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX sh")


def run_sh(lines: list[str]) -> dict:
    proc = subprocess.run(
        ["sh", "-c", "\n".join(lines)], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(proc.stdout)


@needs_sh
def test_posix_block_delivers_tricky_values_intact() -> None:
    env = {f"TD_VAR_{i}": value for i, value in enumerate(TRICKY)}
    argv = [sys.executable, "-c", DUMP, ",".join(env), *TRICKY]
    got = run_sh(posix_lines(env, argv))
    assert got == {"env": env, "argv": TRICKY}


def test_blocks_refuse_names_no_shell_can_set() -> None:
    for make in (posix_lines, cmd_lines, powershell_lines):
        with pytest.raises(ValueError, match="variable A B: not a variable name a shell can"):
            make({"A B": "x", "OK": "y"}, ["python"])
    assert posix_lines({"OK": "y"}, ["python"]) == ["export OK=y", "python"]


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("a&b|c<d>e^f(g)", 'set "V=a&b|c<d>e^f(g)"'),  # all quoted: literal for cmd
        ("100%", 'set "V=100%%"'),
        ("%PATH%", 'set "V=%%PATH%%"'),
        ("wow!", 'set "V=wow!"'),  # literal: the block turns delayed expansion off
        ('x"&y', 'set "V=x"^&y"'),  # the inner quote ends cmd's quoting: & must be escaped
        ('a"b"&c', 'set "V=a"b"&c"'),  # two inner quotes: & is quoted again
        ('q" ^ &', 'set "V=q" ^^ ^&"'),
    ],
)
def test_cmd_set_lines(value: str, line: str) -> None:
    assert cmd_lines({"V": value}, ["python"])[1] == line


def test_cmd_block_turns_off_delayed_expansion_and_refuses_multiline_values() -> None:
    assert cmd_lines({"A": "one"}, ["python"])[0] == "setlocal DisableDelayedExpansion"
    # cmd cannot write a line break: the task is not started at all (not without its variable).
    for env, argv, what in (({"A": "one\ntwo"}, ["python"], "variable A"),
                            ({}, ["python", "x", "a\ntouch PWNED"], "argument 2")):
        assert cmd_lines(env, argv) == [
            f"rem cmd cannot start this task: {what} spans several lines. Use the PowerShell "
            "or sh block."]


def test_cmd_command_line_quotes_for_the_c_runtime_and_escapes_for_cmd() -> None:
    argv = [r"C:\Program Files\Py\python.exe", "a b", "x&y", 'say "hi"', "50%", 'a"b&c', ""]
    line = cmd_lines({}, argv)[-1]
    # list2cmdline quoting (what python.exe splits back), then cmd's escapes: x&y is outside
    # quotes (caret), a\"b&c has & inside cmd's quote state (left alone: a caret would stay).
    assert line == r'"C:\Program Files\Py\python.exe" "a b" x^&y "say \"hi\"" 50%% a\"b&c ""'
    assert cmd_escape("a^b") == "a^^b"


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("plain", "'plain'"),
        ("it's", "'it''s'"),
        ("\u2018smart\u2019", "'\u2018\u2018smart\u2019\u2019'"),
        ("$env:PATH `n $(x)", "'$env:PATH `n $(x)'"),
        ('say "hi"', "'say \"hi\"'"),
        ("", "''"),
    ],
)
def test_powershell_quote(value: str, quoted: str) -> None:
    assert quote(value, "powershell") == quoted


def test_powershell_lines() -> None:
    lines = powershell_lines({"TF_CONFIG": '{"a": 1}', "A": "it's"}, ["C:\\py.exe", "x y"])
    assert lines == [
        "$env:TF_CONFIG = '{\"a\": 1}'",
        "$env:A = 'it''s'",
        "& 'C:\\py.exe' 'x y'",
    ]


FENCE = re.compile(r"^### (\S+?)(?::[^\n]*)?$|^(`{3,})sh\n(.*?)\n\2$", re.S | re.M)


def sh_blocks(markdown: str) -> dict[str, list[str]]:
    """Task name -> the lines of its POSIX block."""
    blocks, task = {}, None
    for match in FENCE.finditer(markdown):
        if match.group(1):
            task = match.group(1)
        else:
            blocks[task] = match.group(3).split("\n")
    return blocks


@needs_sh
def test_commands_file_starts_each_task_as_tensordeck_would(tmp_path: Path) -> None:
    (tmp_path / "dump.py").write_text(
        "import json, os, sys\n"
        "keys = ['TF_CONFIG', 'TENSORDECK_TASK', 'CUDA_VISIBLE_DEVICES', 'ODD']\n"
        "print(json.dumps({'env': {k: os.environ.get(k) for k in keys}, 'argv': sys.argv[1:]}))\n"
    )
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps(
            {
                "name": "t",
                "strategy": "between_graph",
                "script": "dump.py",
                "cluster_spec": "both",
                "args": ["--note", 'it\'s 100% $HOME & "more"!'],
                "tasks": [
                    {"role": "worker", "count": 2, "gpus": [1]},
                    {"role": "ps", "port": 23187},
                ],
                "env": {"ODD": "a 'b' \"c\" %d% $e ^f &g !h"},
            }
        )
    )
    out = tmp_path / "commands.md"
    assert export(job, commands=str(out)) == 0
    markdown = out.read_text(encoding="utf-8")
    assert "stop them by hand" in markdown
    assert markdown.count("```bat") == markdown.count("```powershell") == 3
    blocks = sh_blocks(markdown)
    assert list(blocks) == ["ps-0", "worker-0", "worker-1"]  # servers first
    for name, lines in blocks.items():
        role, index = name.split("-")
        got = run_sh(lines)
        tf_config = json.loads(got["env"]["TF_CONFIG"])
        assert tf_config["task"] == {"type": role, "index": int(index)}
        assert tf_config["cluster"]["ps"] == ["localhost:23187"]
        assert got["env"]["TENSORDECK_TASK"] == f"{role}:{index}"
        assert got["env"]["CUDA_VISIBLE_DEVICES"] == ("-1" if role == "ps" else "1")
        assert got["env"]["ODD"] == "a 'b' \"c\" %d% $e ^f &g !h"
        assert got["argv"] == [
            "--note",
            'it\'s 100% $HOME & "more"!',
            f"--job_name={role}",
            f"--task_index={index}",
            "--ps_hosts=localhost:23187",
            "--worker_hosts=" + ",".join(tf_config["cluster"]["worker"]),
        ]


def test_commands_are_grouped_per_node(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("")
    plan = plan_run(config(), tmp_path / "job.json")
    plan.release_ports()
    node = Node(host="10.0.0.7", user="ana", python="/opt/tf/bin/python", shell="posix")
    # What the planner records for tasks placed on a node.
    tasks = tuple(dataclasses.replace(t, node="gpu-box") if t.role == "worker" else t
                  for t in plan.tasks)
    plan = dataclasses.replace(
        plan, config=dataclasses.replace(plan.config, nodes={"gpu-box": node}), tasks=tasks)
    markdown = commands_markdown(plan)
    local, remote = markdown.split("## Node `gpu-box` (ana@10.0.0.7, folder `tensordeck`)")
    assert "## This machine" in local and "### ps-0" in local and "### worker" not in local
    assert "### worker-0" in remote and "### worker-1" in remote
    assert "```sh" in remote and "```bat" not in remote and "```powershell" not in remote


def test_markdown_fence_outlasts_backticks_in_values(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("")
    plan = plan_run(config(env={"TICKS": "a ```` b"}), tmp_path / "job.json")
    plan.release_ports()
    assert "`````sh\n" in commands_markdown(plan)


def test_command_reports_config_problems_and_write_errors(tmp_path: Path, capsys) -> None:
    assert export(tmp_path / "missing.json", commands="-") == 2
    assert "no such file" in capsys.readouterr().err
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "t", "strategy": "single", "script": "nope.py"}))
    assert export(job, commands="-") == 2
    assert "nope.py does not exist" in capsys.readouterr().err
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert export(EXAMPLES / "mirrored.json", kubeflow=str(blocked / "job.yaml")) == 1
    assert "cannot write" in capsys.readouterr().err


@needs_sh
def test_commands_make_the_run_folder_they_point_at(tmp_path: Path) -> None:
    """Pasted as they are, the commands work: the task writes into TENSORDECK_RUN_DIR."""
    (tmp_path / "save.py").write_text(
        "import os\n"
        "with open(os.path.join(os.environ['TENSORDECK_RUN_DIR'], 'model.txt'), 'w') as f:\n"
        "    f.write('saved')\n"
        "print('{}')\n"
    )
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "t", "strategy": "single", "script": "save.py",
                               "run_dir": "runs/exported"}))
    out = tmp_path / "commands.md"
    assert export(job, commands=str(out)) == 0
    run_dir = tmp_path / "runs" / "exported"
    assert run_dir.is_dir() and list(run_dir.iterdir()) == []
    [lines] = sh_blocks(out.read_text(encoding="utf-8")).values()
    assert run_sh(lines) == {}
    assert (run_dir / "model.txt").read_text() == "saved"


def test_commands_not_written_leave_no_run_folder(tmp_path: Path, capsys) -> None:
    (tmp_path / "train.py").write_text("")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "t", "strategy": "single", "script": "train.py",
                               "run_dir": "runs/exported"}))
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert export(job, commands=str(blocked / "commands.md")) == 1
    assert "cannot write" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()  # the folder made for it went with it


def test_per_role_restarts_become_each_replicas_policy() -> None:
    cfg = config(
        strategy="parameter_server",
        tasks=[
            {"role": "chief", "restart": {"policy": "on_failure", "max_restarts": 5}},
            {"role": "worker", "count": 1, "restart": {"policy": "never"}},
            {"role": "worker", "count": 1},
            {"role": "ps"},
        ],
    )
    out = tfjob(cfg)
    specs = out.manifest["spec"]["tfReplicaSpecs"]
    assert {k: v["restartPolicy"] for k, v in specs.items()} == {
        "Chief": "OnFailure", "Worker": "Never", "PS": "Never"}
    assert out.manifest["spec"]["runPolicy"]["backoffLimit"] == 5
    assert any("Worker: its tasks have different restart policies" in n for n in out.notes)
