"""The config model: what is accepted, and one clear message per problem for what is not."""

from __future__ import annotations

import json
import socket

import pytest

from core.cli import main
from core.config import ConfigError, load_config, parse_config, schema
from tests.conftest import EXAMPLES, tensordeck

GOOD = {
    "name": "quickstart",
    "strategy": "parameter_server",
    "script": "train.py",
    "tasks": [{"role": "chief"}, {"role": "worker", "count": 2}, {"role": "ps", "gpus": []}],
}


def with_(**changes) -> dict:
    return {**GOOD, **changes}


def test_minimal_config_gets_documented_defaults():
    cfg = parse_config(GOOD)
    assert cfg.effective_cluster_spec == "tf_config"
    assert cfg.restart.policy == "never" and cfg.stop_grace_seconds == 10
    assert cfg.cross_device_ops == "auto" and cfg.args == [] and cfg.python is None
    assert (
        parse_config(
            {**GOOD, "strategy": "between_graph", "tasks": [{"role": "ps"}, {"role": "worker"}]}
        ).effective_cluster_spec
        == "flags"
    )


def test_single_strategy_defaults_to_one_worker():
    cfg = parse_config({"name": "one", "strategy": "single", "script": "t.py"})
    assert [(t.role, t.count) for t in cfg.tasks] == [("worker", 1)]


BAD = [
    ("unknown top key", with_(scirpt="x.py"), "scirpt: unknown key; did you mean 'script'?"),
    (
        "unknown task key",
        with_(tasks=[{"role": "chief", "gpu": [0]}, {"role": "worker"}, {"role": "ps"}]),
        "tasks[0].gpu: unknown key; did you mean 'gpus'?",
    ),
    (
        "count zero",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "count": 0}, {"role": "ps"}]),
        "tasks[1].count: must be >= 1",
    ),
    (
        "count as string",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "count": "2"}, {"role": "ps"}]),
        "tasks[1].count: must be an integer",
    ),
    ("bad role", with_(tasks=[{"role": "boss"}]), "tasks[0].role: must be one of: chief, worker"),
    ("bad strategy", with_(strategy="horovod"), "strategy: must be one of: single"),
    ("missing script", {k: v for k, v in GOOD.items() if k != "script"}, "script: is required"),
    ("missing name", {k: v for k, v in GOOD.items() if k != "name"}, "name: is required"),
    ("name with slash", with_(name="a/b"), "name: must be 1-64 characters"),
    (
        "port out of range",
        with_(tasks=[{"role": "chief"}, {"role": "worker"}, {"role": "ps", "port": 70000}]),
        "tasks[2].port: must be <= 65535",
    ),
    (
        "duplicate port",
        with_(
            tasks=[
                {"role": "chief", "port": 23001},
                {"role": "worker", "count": 2, "port": 23000},
                {"role": "ps"},
            ]
        ),
        "tasks[1].port: port 23001 is also used by tasks[0]",
    ),
    (
        "negative gpu",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "gpus": [-1]}, {"role": "ps"}]),
        "tasks[1].gpus: GPU indexes must be >= 0",
    ),
    (
        "two chiefs",
        with_(tasks=[{"role": "chief", "count": 2}, {"role": "worker"}, {"role": "ps"}]),
        "tasks[0].count: a cluster has at most one chief",
    ),
    (
        "ps strategy without ps",
        with_(tasks=[{"role": "chief"}, {"role": "worker"}]),
        "tasks: parameter_server needs at least one ps",
    ),
    (
        "ps strategy without chief",
        with_(tasks=[{"role": "worker"}, {"role": "ps"}]),
        "tasks: parameter_server needs exactly one chief",
    ),
    (
        "between_graph with chief",
        with_(strategy="between_graph"),
        "tasks: between_graph uses only ps and worker tasks",
    ),
    (
        "mwms with ps",
        with_(strategy="multi_worker_mirrored"),
        "tasks: multi_worker_mirrored has no ps tasks",
    ),
    ("single with cluster", with_(strategy="single"), "tasks: strategy 'single' runs one process"),
    ("TF_CONFIG in env", with_(env={"TF_CONFIG": "{}"}), "env: TF_CONFIG is set by TensorDeck"),
    ("env value not string", with_(env={"A": 1}), "env.A: must be a string"),
    ("args not list", with_(args="--steps 3"), "args: must be a list"),
    (
        "restart without max",
        with_(restart={"policy": "on_failure"}),
        "restart: policy 'on_failure' needs max_restarts >= 1",
    ),
    ("negative grace", with_(stop_grace_seconds=-1), "stop_grace_seconds: must be >= 0"),
    (
        "remote host",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "host": "10.0.0.5"}, {"role": "ps"}]),
        "tasks[1].host: '10.0.0.5' is another machine: describe it in \"nodes\"",
    ),
    ("not an object", [1, 2], "must be a JSON object"),
    (
        "count past the bound",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "count": 5000}, {"role": "ps"}]),
        "tasks[1].count: must be <= 1024",
    ),
    ("line separator in name", with_(name="a\u2028b"), "name: must be 1-64 characters"),
    ("C1 control in args", with_(args=["\x9b2J"]), "args[0]: contains the control character"),
    ("NaN", with_(stop_grace_seconds=float("nan")), "stop_grace_seconds: NaN is not a JSON number"),
    (
        "loopback look-alike host",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "host": "127.evil"}, {"role": "ps"}]),
        "tasks[1].host: '127.evil' is another machine",
    ),
    (
        "unknown node",
        with_(
            tasks=[{"role": "chief"}, {"role": "worker", "node": "lab9"}, {"role": "ps"}], nodes={}
        ),
        "tasks[1].node: no node 'lab9' (nodes: none defined)",
    ),
    (
        "node key typo",
        with_(nodes={"lab2": {"host": "10.0.0.2", "python": "python3", "pasword": True}}),
        "nodes.lab2.pasword: unknown key; did you mean 'password'?",
    ),
    (
        "node without python",
        with_(nodes={"lab2": {"host": "10.0.0.2"}}),
        "nodes.lab2.python: is required",
    ),
    (
        "node on loopback",
        with_(nodes={"lab2": {"host": "localhost", "python": "python3"}}),
        "nodes.lab2.address: localhost is not reachable from other machines",
    ),
    (
        "mixed cluster without address",
        with_(
            tasks=[{"role": "chief"}, {"role": "worker", "node": "lab2"}, {"role": "ps"}],
            nodes={"lab2": {"host": "10.0.0.2", "python": "python3"}},
        ),
        "address: tasks run here and on other nodes: give this machine's LAN address",
    ),
    (
        "task restart key typo",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "restart": {"polcy": "never"}},
                     {"role": "ps"}]),
        "tasks[1].restart.polcy: unknown key; did you mean 'policy'? (allowed: policy, "
        "max_restarts, backoff_seconds)",
    ),
    (
        "task restart bad policy",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "restart": {"policy": "always"}},
                     {"role": "ps"}]),
        "tasks[1].restart.policy: must be one of: never or on_failure",
    ),
    (
        "task restart negative",
        with_(tasks=[{"role": "chief"}, {"role": "ps", "restart": {"policy": "on_failure",
                                                                  "max_restarts": -1}},
                     {"role": "worker"}]),
        "tasks[1].restart.max_restarts: must be >= 0",
    ),
    (
        "task restart without restarts",
        with_(tasks=[{"role": "chief", "restart": {"policy": "on_failure"}}, {"role": "worker"},
                     {"role": "ps"}]),
        "tasks[0].restart: policy 'on_failure' needs max_restarts >= 1",
    ),
    (
        "task restart not an object",
        with_(tasks=[{"role": "chief"}, {"role": "worker", "restart": "on_failure"},
                     {"role": "ps"}]),
        "tasks[1].restart: must be an object, not a string",
    ),
]


@pytest.mark.parametrize("data,expected", [(d, e) for _, d, e in BAD], ids=[n for n, _, _ in BAD])
def test_bad_config_exits_2_names_the_field_and_starts_nothing(tmp_path, capsys, data, expected):
    (tmp_path / "train.py").write_text("print('never runs')\n")
    path = tmp_path / "job.json"
    path.write_text(json.dumps(data))
    assert main(["--run", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert "nothing was started" in err
    assert not (tmp_path / "runs").exists()


def test_restart_policies_per_role_override_the_jobs():
    """An entry's restart wins; parameter_server workers restart on failure unless the job's
    policy restarts itself; chief and ps follow the job's (never by default)."""
    tasks = [{"role": "chief"}, {"role": "worker", "count": 2},
             {"role": "worker", "restart": {"policy": "never"}},
             {"role": "ps", "restart": {"policy": "on_failure", "max_restarts": 5}}]
    cfg = parse_config(with_(tasks=tasks))

    def policy(role: str, index: int) -> tuple[str, int]:
        chosen = cfg.restart_for(role, index)
        return chosen.policy, chosen.max_restarts

    assert [policy("worker", i) for i in range(3)] == [("on_failure", 3)] * 2 + [("never", 0)]
    assert (policy("chief", 0), policy("ps", 0)) == (("never", 0), ("on_failure", 5))
    job_restarts = with_(tasks=tasks, restart={"policy": "on_failure", "max_restarts": 9})
    assert parse_config(job_restarts).restart_for("worker", 0).max_restarts == 9
    other = parse_config(with_(strategy="between_graph", tasks=[{"role": "ps"},
                                                                {"role": "worker"}]))
    assert other.restart_for("worker", 0).policy == "never"  # only parameter_server's workers


def test_validate_accepts_a_task_restart_and_refuses_a_bad_one(tmp_path):
    (tmp_path / "train.py").write_text("print('never runs')\n")
    path = tmp_path / "job.json"
    worker = {"role": "worker", "restart": {"policy": "on_failure", "max_restarts": 2}}
    path.write_text(json.dumps(with_(tasks=[{"role": "chief"}, worker, {"role": "ps"}])))
    ok = tensordeck("validate", str(path))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    worker["restart"]["backoff_seconds"] = -1
    path.write_text(json.dumps(with_(tasks=[{"role": "chief"}, worker, {"role": "ps"}])))
    bad = tensordeck("validate", str(path))
    assert bad.returncode == 2
    problems = [line for line in bad.stderr.splitlines() if line.startswith(str(path))]
    assert problems == [f"{path}: tasks[1].restart.backoff_seconds: must be >= 0.0"]
    assert not (tmp_path / "runs").exists()


def test_parsed_data_is_held_to_what_a_file_may_say():
    """The window hands over parsed data, not text: the same limits apply."""
    cases = [
        (with_(stop_grace_seconds=float("inf")), "stop_grace_seconds: inf is not a JSON number"),
        (with_(args=["a\ud800"]), "args[0]: contains a lone surrogate"),
        (with_(args=[[[["x"]]]] * 2), None),  # a type error, not a crash
        (with_(stop_grace_seconds=10**400), "stop_grace_seconds: a number of about"),
    ]
    for data, expected in cases:
        with pytest.raises(ConfigError) as info:
            parse_config(data)
        if expected:
            assert expected in str(info.value.problems[0])


def test_every_problem_is_reported_at_once():
    with pytest.raises(ConfigError) as info:
        parse_config(with_(name="", strategy="x", stop_grace_seconds="1"))
    wheres = [p.where for p in info.value.problems]
    assert wheres == ["name", "strategy", "stop_grace_seconds"]


def test_invalid_json_names_line_and_column(tmp_path):
    path = tmp_path / "job.json"
    path.write_text('{\n  "name": "x",\n  "strategy": "single"\n  "script": "t.py"\n}')
    with pytest.raises(ConfigError, match=r"invalid JSON at line 4, column 3"):
        load_config(path)


def test_missing_file_and_missing_script_exit_2(tmp_path):
    result = tensordeck("--run", str(tmp_path / "nope.json"))
    assert result.returncode == 2 and "no such file" in result.stderr
    path = tmp_path / "job.json"
    path.write_text(json.dumps(GOOD))
    result = tensordeck("validate", str(path))
    assert result.returncode == 2
    assert f"script: {tmp_path / 'train.py'} does not exist" in result.stderr
    assert not (tmp_path / "runs").exists()


def test_missing_interpreter_is_a_config_error(tmp_path, capsys):
    (tmp_path / "train.py").write_text("")
    path = tmp_path / "job.json"
    path.write_text(json.dumps(with_(python="envs/nothing/python.exe")))
    assert main(["validate", str(path)]) == 2
    assert "python: " in capsys.readouterr().err


def test_port_in_use_exits_2_before_anything_starts(tmp_path, capsys):
    (tmp_path / "train.py").write_text("")
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        path = tmp_path / "job.json"
        path.write_text(
            json.dumps(
                with_(tasks=[{"role": "chief"}, {"role": "worker"}, {"role": "ps", "port": port}])
            )
        )
        assert main(["--run", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"tasks[2].port: port {port} is in use by another program" in err
    assert not (tmp_path / "runs").exists()


def test_schema_is_published_and_accepts_the_shipped_examples():
    jsonschema = pytest.importorskip("jsonschema")
    result = tensordeck("schema")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert doc == json.loads(json.dumps(schema()))
    examples = sorted(EXAMPLES.glob("*.json"))
    assert examples, "no shipped examples"
    for example in examples:
        data = json.loads(example.read_text())
        jsonschema.validate(data, doc)
        parse_config(data)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(with_(colour="blue"), doc)


#: One problem of each kind, each with the words it is listed with: a field's own value, what
#: the fields say together, and what planning finds (the interpreter run, the script compiled).
FIELD_PROBLEMS = {
    "bad name": ({"name": "a/b"}, "name:"),
    "bad grace": ({"stop_grace_seconds": -1}, "stop_grace_seconds:"),
    "unknown key": ({"colour": "blue"}, "colour: unknown key"),
}
CROSS_PROBLEMS = {
    "no chief": ({"strategy": "parameter_server",
                  "tasks": [{"role": "worker", "count": 2}, {"role": "ps"}]},
                 "parameter_server needs exactly one chief"),
    "two evaluators": ({"strategy": "multi_worker_mirrored",
                        "tasks": [{"role": "worker"}, {"role": "evaluator", "count": 2}]},
                       "evaluator"),
}
PLAN_PROBLEMS = {
    "not a python": ({"python": "notes.txt"}, "python:"),
    "syntax error": ({"script": "broken.py"}, "invalid syntax"),
}


@pytest.mark.parametrize("field", FIELD_PROBLEMS)
@pytest.mark.parametrize("cross", CROSS_PROBLEMS)
@pytest.mark.parametrize("plan", PLAN_PROBLEMS)
def test_validate_lists_every_problem_at_once(tmp_path, field, cross, plan):
    """A wrong field does not hide what the fields say together, nor what planning finds
    in the keys that are right: validate lists all three kinds in one go, exit 2."""
    (tmp_path / "train.py").write_text("print('ok')\n")
    (tmp_path / "broken.py").write_text("def train(:\n    pass\n")
    (tmp_path / "notes.txt").write_text("not a program\n")
    data = {"name": "job", "script": "train.py"}
    expected = []
    for values, words in (FIELD_PROBLEMS[field], CROSS_PROBLEMS[cross], PLAN_PROBLEMS[plan]):
        data.update(values)
        expected.append(words)
    path = tmp_path / "job.json"
    path.write_text(json.dumps(data))
    result = tensordeck("validate", str(path), timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    for words in expected:
        assert words in result.stderr, (words, result.stderr)
    assert "nothing was started" in result.stderr and not (tmp_path / "runs").exists()
