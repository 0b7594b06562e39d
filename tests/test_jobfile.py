"""core.jobfile: what editors need from the config model is core's own (its JSON Schema, its
loader, its rules), and a new job of every strategy is a config core runs."""

from __future__ import annotations

import json

import pytest

from core.config import (
    ConfigError,
    JobConfig,
    RestartPolicy,
    SlurmOptions,
    TaskGroup,
    config_to_json,
    parse_config,
    read_config_data,
    schema,
)
from core.jobfile import (
    CLUSTER_SPECS,
    CROSS_DEVICE_OPS,
    KEY_ORDER,
    RESTART_POLICIES,
    ROLES,
    SLURM_KEYS,
    STARTER_TASKS,
    STRATEGIES,
    bounds,
    default,
    kind,
    new_job,
)
from core.model import to_data, validate


def enum(prop: dict) -> list:
    """The values a JSON Schema property allows (null aside)."""
    options = prop.get("anyOf", [prop])
    return [v for option in options for v in option.get("enum", [option.get("const")])
            if v is not None]


def test_choices_and_key_order_are_those_of_the_json_schema():
    doc = schema()
    props, defs = doc["properties"], doc["$defs"]
    assert list(STRATEGIES) == enum(props["strategy"])
    assert list(CLUSTER_SPECS) == enum(props["cluster_spec"])
    assert list(CROSS_DEVICE_OPS) == enum(props["cross_device_ops"])
    assert list(RESTART_POLICIES) == enum(defs["RestartPolicy"]["properties"]["policy"])
    assert list(ROLES) == enum(defs["TaskGroup"]["properties"]["role"])
    assert list(KEY_ORDER) == list(props)


def assert_core_order(data: dict, cfg: JobConfig) -> None:
    """``data`` lists its keys as core's config_to_json does (which leaves out nulls)."""
    dumped = config_to_json(cfg)
    assert set(dumped) <= set(data)
    assert [key for key in data if key in dumped] == list(dumped)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_new_job_of_every_strategy_is_valid_in_core_order_with_its_cluster_spec(strategy):
    data = new_job("job", strategy, "train.py")
    cfg = parse_config(json.loads(json.dumps(data)))
    assert_core_order(data, cfg)
    assert to_data(cfg.tasks, skip_defaults=True) == STARTER_TASKS[strategy]
    expected = None if cfg.strategy in ("single", "mirrored") else cfg.effective_cluster_spec
    assert data["cluster_spec"] == expected
    assert cfg == parse_config({"name": "job", "strategy": strategy, "script": "train.py",
                                "cluster_spec": expected, "tasks": STARTER_TASKS[strategy]})


def test_every_strategy_has_starter_tasks_and_nothing_else_does():
    assert set(STARTER_TASKS) == set(STRATEGIES)


@pytest.mark.parametrize(("model", "field", "base"), [
    (JobConfig, "stop_grace_seconds", {}),
    (RestartPolicy, "backoff_seconds", {}),
    (RestartPolicy, "max_restarts", {}),
    (TaskGroup, "count", {"role": "worker"}),
    (SlurmOptions, "gpus_per_task", {}),
])
def test_bounds_are_the_ones_core_enforces(model, field, base):
    def valid(value: float) -> bool:
        data = {**base, field: value}
        if model is JobConfig:
            data.update(name="j", strategy="single", script="t.py")
        try:
            validate(model, data)
        except ValueError:
            return False
        return True

    low, high = bounds(model, field)
    assert valid(low) and not valid(low - 1)
    assert high is None or (valid(high) and not valid(high + 1))


def test_the_slurm_blocks_keys_and_kinds_are_those_of_the_json_schema():
    """The editor of ``slurm`` builds a field per key, by its kind."""
    props = schema()["$defs"]["SlurmOptions"]["properties"]
    assert list(SLURM_KEYS) == list(props)
    kinds = {"string": "text", "integer": "integer", "number": "number", "array": "lines"}
    for key in SLURM_KEYS:
        types = [o["type"] for o in props[key].get("anyOf", [props[key]]) if o["type"] != "null"]
        assert kind(SlurmOptions, key) == kinds[types[0]], key
    assert [kind(JobConfig, k) for k in ("name", "stop_grace_seconds", "args")] == [
        "text", "number", "lines"]
    with pytest.raises(TypeError):
        kind(JobConfig, "tasks")  # a list of objects: no one field shows it


def test_defaults_are_what_a_file_that_leaves_them_out_gets():
    cfg = parse_config({"name": "j", "strategy": "single", "script": "t.py"})
    for key in ("args", "python", "env", "nodes", "cross_device_ops", "stop_grace_seconds",
                "run_dir", "tasks", "restart"):
        value = getattr(cfg, key)
        assert default(JobConfig, key) == (
            to_data(value) if key == "restart"
            else to_data(value, skip_defaults=True) if key == "tasks" else value)


def test_the_editors_reader_refuses_what_the_cli_refuses_with_its_message(tmp_path):
    path = tmp_path / "job.json"
    path.write_text('{"name": "j", "name": "k", "strategy": "single", "script": "t.py"}')
    with pytest.raises(ConfigError) as refused:
        read_config_data(path)
    assert str(refused.value) == f"{path}: name: duplicate key 'name': the file gives it " \
                                 "twice; keep one"
    path.write_text('{"name": "j", "strategy": "sometimes", "tasks": [{"role": "worker", '
                    '"count": 0}]}')
    assert read_config_data(path) == {"name": "j", "strategy": "sometimes",
                                      "tasks": [{"role": "worker", "count": 0}]}
