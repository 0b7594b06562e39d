"""Per-task command, environment, TF_CONFIG and flags produced from a config."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import pytest

from core.config import ConfigError, parse_config
from core.job_paths import default_run_dir
from core.paths import resource, user_data_dir
from core.placements import resolve_cross_device_ops
from core.ports import port_problem
from core.topology import plan_run
from tests.conftest import tensordeck


def plan(tmp_path: Path, base_env: dict | None = None, cores: int = 8, **data):
    (tmp_path / "train.py").write_text("")
    cfg = parse_config({"name": "job", "script": "train.py", **data})
    result = plan_run(cfg, tmp_path / "job.json", base_env=base_env or {}, cores=cores)
    result.release_ports()
    return result


def free_port(span: int = 1) -> int:
    """A port with ``span`` free ports from it (tests must not collide with a running example)."""
    while True:
        with socket.socket() as sock:
            sock.bind(("0.0.0.0", 0))
            port = sock.getsockname()[1]
        if port + span < 65536 and all(port_problem(p) is None for p in range(port, port + span)):
            return port


def by_key(p):
    return {t.key: t for t in p.tasks}


PS_PORT = free_port()
PS_TASKS = [
    {"role": "chief"},
    {"role": "worker", "count": 2},
    {"role": "ps", "port": PS_PORT},
    {"role": "evaluator"},
]


def test_parameter_server_tf_config(tmp_path):
    p = plan(tmp_path, strategy="parameter_server", tasks=PS_TASKS)
    tasks = by_key(p)
    assert list(tasks) == ["ps:0", "worker:0", "worker:1", "chief:0", "evaluator:0"]
    assert tasks["ps:0"].port == PS_PORT
    ports = [t.port for t in p.tasks if t.role != "evaluator"]
    assert len(set(ports)) == 4 and all(ports)
    assert set(p.cluster) == {"chief", "worker", "ps"}  # the evaluator is not in the cluster
    assert p.cluster["worker"] == [tasks["worker:0"].address, tasks["worker:1"].address]
    for key, task in tasks.items():
        tf_config = json.loads(task.env["TF_CONFIG"])
        assert tf_config["cluster"] == p.cluster
        assert tf_config["task"] == {"type": task.role, "index": task.index}
        assert task.env["TENSORDECK_TASK"] == key
        assert task.env["TENSORDECK_RUN_DIR"] == str(p.run_dir)
        assert task.argv == [p.python, str(tmp_path / "train.py")]
    assert tasks["evaluator:0"].port is None


def test_runtime_module_goes_first_on_the_task_path(tmp_path):
    from core.paths import resource

    runtime = str(resource("runtime"))
    assert plan(tmp_path, strategy="single").tasks[0].env["PYTHONPATH"] == runtime
    p = plan(tmp_path, strategy="single", base_env={"PYTHONPATH": "/a"}, env={"PYTHONPATH": "/b"})
    assert p.tasks[0].env["PYTHONPATH"] == f"{runtime}{os.pathsep}/b"


def test_between_graph_appends_legacy_flags(tmp_path):
    ps = free_port(3)
    p = plan(
        tmp_path,
        strategy="between_graph",
        args=["--steps", "5"],
        tasks=[{"role": "ps", "port": ps}, {"role": "worker", "count": 2, "port": ps + 1}],
    )
    worker1 = by_key(p)["worker:1"]
    assert worker1.argv[2:] == [
        "--steps",
        "5",
        "--job_name=worker",
        "--task_index=1",
        f"--ps_hosts=localhost:{ps}",
        f"--worker_hosts=localhost:{ps + 1},localhost:{ps + 2}",
    ]
    assert "TF_CONFIG" not in worker1.env


def test_placeholders_replace_appended_flags(tmp_path):
    ps = free_port(2)
    p = plan(
        tmp_path,
        strategy="between_graph",
        cluster_spec="both",
        args=["--role={job_name}", "--i", "{task_index}", "--ps={ps_hosts}", "--out={run_dir}/x"],
        tasks=[{"role": "ps", "port": ps}, {"role": "worker", "port": ps + 1}],
    )
    worker = by_key(p)["worker:0"]
    assert worker.argv[2:] == [
        "--role=worker",
        "--i",
        "0",
        f"--ps=localhost:{ps}",
        f"--out={p.run_dir}/x",
    ]
    assert json.loads(worker.env["TF_CONFIG"])["task"] == {"type": "worker", "index": 0}


def test_thread_budget_shares_cores_unless_the_user_chose(tmp_path):
    p = plan(tmp_path, cores=8, strategy="parameter_server", tasks=PS_TASKS[:3])
    env = p.tasks[0].env
    assert (
        env["TF_NUM_INTRAOP_THREADS"],
        env["TF_NUM_INTEROP_THREADS"],
        env["OMP_NUM_THREADS"],
    ) == ("2", "2", "2")  # 8 cores / 4 tasks; inter-op never 1
    assert env["PYTHONUNBUFFERED"] == "1" and env["PYTHONUTF8"] == "1"
    p = plan(
        tmp_path,
        cores=2,
        base_env={"OMP_NUM_THREADS": "3"},
        strategy="single",
        env={"TF_NUM_INTRAOP_THREADS": "7"},
    )
    env = p.tasks[0].env
    assert env["TF_NUM_INTRAOP_THREADS"] == "7" and "OMP_NUM_THREADS" not in env
    assert env["TF_NUM_INTEROP_THREADS"] == "2"


def test_gpu_visibility(tmp_path):
    p = plan(
        tmp_path,
        strategy="parameter_server",
        tasks=[
            {"role": "chief", "gpus": []},
            {"role": "worker", "count": 2, "gpus": [0, 1]},
            {"role": "ps"},
        ],
    )
    tasks = by_key(p)
    assert tasks["ps:0"].env["CUDA_VISIBLE_DEVICES"] == "-1"  # ps default: no GPU
    assert tasks["chief:0"].env["CUDA_VISIBLE_DEVICES"] == "-1"
    assert tasks["worker:1"].env["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert "TF_FORCE_GPU_ALLOW_GROWTH" not in tasks["worker:1"].env
    p = plan(tmp_path, strategy="multi_worker_mirrored", tasks=[{"role": "worker", "count": 2}])
    worker = p.tasks[0]
    assert "CUDA_VISIBLE_DEVICES" not in worker.env
    assert worker.env["TF_FORCE_GPU_ALLOW_GROWTH"] == "true"  # two processes share the GPUs


def test_single_process_strategies_have_no_cluster(tmp_path):
    p = plan(tmp_path, strategy="mirrored", cross_device_ops="reduction_to_one_device")
    (task,) = p.tasks
    assert task.port is None and p.cluster == {} and "TF_CONFIG" not in task.env
    assert task.env["TENSORDECK_CROSS_DEVICE_OPS"] == "reduction_to_one_device"


def test_cross_device_ops_auto_is_explicit_on_windows():
    assert resolve_cross_device_ops("auto", "win32") == "hierarchical_copy"
    assert resolve_cross_device_ops("auto", "linux") == "auto"
    assert resolve_cross_device_ops("nccl", "win32") == "nccl"


def test_named_port_in_use_is_reported_per_entry(tmp_path):
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ConfigError) as info:
            plan(
                tmp_path,
                strategy="between_graph",
                tasks=[{"role": "ps"}, {"role": "worker", "port": port}],
            )
    assert [str(p) for p in info.value.problems] == [
        f"tasks[1].port: port {port} is in use by another program; free it, or choose another "
        "port (or omit 'port' to let TensorDeck pick a free one)"
    ]


def test_run_dir_default_and_override(tmp_path):
    first = default_run_dir(tmp_path / "job.json", "demo", now=0)
    assert first.parent == tmp_path / "runs" and first.name.endswith("-demo")
    first.mkdir(parents=True)
    assert default_run_dir(tmp_path / "job.json", "demo", now=0).name == first.name + "-2"
    read_only = tmp_path / "site-packages" / "job.json"
    real_access = os.access
    # As root every folder is writable, so the read-only case is simulated at os.access.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            os, "access", lambda path, mode: path != read_only.parent and real_access(path, mode)
        )
        fallback = default_run_dir(read_only, "demo", now=0)
    assert fallback.parent == user_data_dir() / "runs"
    p = plan(tmp_path, strategy="single", run_dir="out/here")
    assert p.run_dir == tmp_path / "out" / "here"


def test_a_shipped_example_runs_into_the_users_data_folder():
    """The Quick start's ``tensordeck --run resources/examples/quickstart.json`` writes its run
    folder into the user's data folder, never among the examples (the source tree, or the
    app's own folder), writable or not."""
    example = resource("examples", "quickstart.json")
    assert default_run_dir(example, "quickstart", now=0).parent == user_data_dir() / "runs"
    dry = tensordeck("--run", str(example), "--dry-run", "--no-doctor")
    assert dry.returncode == 0, dry.stderr
    assert f"run folder: {user_data_dir() / 'runs'}" in dry.stdout, dry.stdout


def test_python_as_env_folder_or_missing(tmp_path):
    env = tmp_path / "envs" / "tf"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").write_text("")
    assert plan(tmp_path, strategy="single", python="envs/tf").python == str(env / "bin" / "python")
    with pytest.raises(ConfigError, match=r"python: .*does not exist"):
        plan(tmp_path, strategy="single", python="envs/none/python")
    with pytest.raises(ConfigError, match="'no-such-python3' is not on PATH"):
        plan(tmp_path, strategy="single", python="no-such-python3")


def test_conda_env_interpreter_is_activated_for_its_tasks(tmp_path):
    """Starting the env's python without `conda activate`: TensorDeck adds what activation
    adds, so the env's CUDA libraries are found (the classic 'works in Anaconda Prompt').
    Each platform's conda layout: <env>/bin/python and LD_LIBRARY_PATH on POSIX;
    <env>\\python.exe and the folders conda.bat puts on PATH, in its order, on Windows."""
    env = tmp_path / "miniconda3" / "envs" / "tf"
    (env / "conda-meta").mkdir(parents=True)
    if sys.platform == "win32":
        python = env / "python.exe"
        system = "C:\\Windows\\system32"
        activated = [env, env / "Library" / "mingw-w64" / "bin", env / "Library" / "usr" / "bin",
                     env / "Library" / "bin", env / "Scripts", env / "bin"]
    else:
        python = env / "bin" / "python"
        system = "/usr/bin"
        activated = [env / "bin"]
    python.parent.mkdir(parents=True, exist_ok=True)
    python.write_text("")
    p = plan(
        tmp_path,
        base_env={"PATH": system, "LD_LIBRARY_PATH": "/opt/x"},
        strategy="single",
        python=str(python),
    )
    task_env = p.task_env(p.tasks[0])
    assert task_env["PATH"].split(os.pathsep) == [*map(str, activated), system]
    if sys.platform == "win32":  # DLLs are found through PATH; LD_LIBRARY_PATH means nothing
        assert task_env["LD_LIBRARY_PATH"] == "/opt/x"
    else:
        assert task_env["LD_LIBRARY_PATH"].split(os.pathsep)[0] == str(env / "lib")
    assert task_env["CONDA_PREFIX"] == str(env)


def test_a_plan_with_nodes_is_pure_until_the_nodes_answer(tmp_path):
    """plan_run never contacts a node (this one does not exist): a node task has its command
    on the node, the port the config names (or None: picked there) and no local command; what
    the nodes say later fills in the cluster of every task."""
    ps = free_port()
    node = {"host": "192.0.2.1", "python": "/opt/tf/bin/python", "workdir": "/srv/td"}
    p = plan(
        tmp_path,
        strategy="parameter_server",
        address="192.0.2.9",
        nodes={"far": node},
        tasks=[{"role": "ps", "port": ps}, {"role": "worker", "count": 2, "node": "far"},
               {"role": "chief"}],
    )
    tasks = by_key(p)
    assert p.node_ports() == {"far": [None, None]}
    worker = tasks["worker:1"]
    assert worker.argv == [] and worker.port is None
    run_folder = f"/srv/td/runs/{p.run_dir.name}"
    assert worker.command == ["/opt/tf/bin/python", f"{run_folder}/train.py"]
    assert worker.env["TENSORDECK_RUN_DIR"] == run_folder
    assert "worker" not in json.loads(tasks["chief:0"].env["TF_CONFIG"])["cluster"]  # not yet

    from core.placements.node import NodePlace, OnNode

    real = NodePlace("/real/run", "/real/run/t.py")
    placed = p.with_node_ports({"far": [7001, 7002]},
                               {t.key: OnNode("far", real) for t in p.node_tasks})
    assert by_key(p)["worker:1"].port is None  # a plan never changes: a new one is made
    tasks = by_key(placed)
    worker = tasks["worker:1"]
    cluster = json.loads(tasks["chief:0"].env["TF_CONFIG"])["cluster"]
    assert cluster == {"ps": [f"192.0.2.9:{ps}"], "worker": ["192.0.2.1:7001", "192.0.2.1:7002"],
                       "chief": [tasks["chief:0"].address]}
    assert worker.command == ["/opt/tf/bin/python", "/real/run/t.py"]
    assert worker.env["TENSORDECK_RUN_DIR"] == "/real/run"
    assert json.loads(worker.env["TF_CONFIG"])["task"] == {"type": "worker", "index": 1}
    assert tasks["ps:0"].env["TENSORDECK_RUN_DIR"] == str(placed.run_dir)  # local tasks stay
