"""Training throughput: the quickstart parameter-server cluster (1 chief, 2 workers, 1 ps)
through ``tensordeck --run`` versus the same four processes started by hand, the way people
do it today: each with its TF_CONFIG and no thread budgets.

Throughput is the chief's steady-state training rate: steps per second between its first and
its last progress line, so TF's import and cluster start-up are left out on both sides. Prints
the ratio TensorDeck / by hand (aim >= 1.0).

    python bench/training_throughput.py [--steps N] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, TENSORDECK

EXAMPLE = REPO / "resources" / "examples" / "quickstart.json"
STEP = re.compile(r"step (\d+)/(\d+)")


def steps_per_second(stream) -> float:
    """Read a chief's output until it ends; steps/s between the first and last step line."""
    marks = []
    for line in stream:
        match = STEP.search(line)
        if match:
            marks.append((time.perf_counter(), int(match.group(1))))
    if len(marks) < 2:
        raise RuntimeError("the chief printed fewer than two step lines")
    (t0, s0), (t1, s1) = marks[0], marks[-1]
    return (s1 - s0) / (t1 - t0)


def through_tensordeck(config: Path, folder: Path, n: int) -> float:
    proc = subprocess.Popen(
        [*TENSORDECK, "--run", str(config), "--run-dir", str(folder / f"run-{n}")],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    chief_lines = (line for line in proc.stdout if line.startswith("[chief-0]"))
    rate = steps_per_second(chief_lines)
    if proc.wait() != 0:
        raise RuntimeError("tensordeck run failed")
    return rate


def free_ports(count: int) -> list[int]:
    import socket

    socks = [socket.socket() for _ in range(count)]
    for s in socks:
        s.bind(("0.0.0.0", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def by_hand(cfg: dict, script: Path) -> float:
    """Four consoles' worth of processes: TF_CONFIG each, no thread budgets, ps killed after."""
    ports = free_ports(4)
    cluster = {
        "chief": [f"localhost:{ports[0]}"],
        "worker": [f"localhost:{ports[1]}", f"localhost:{ports[2]}"],
        "ps": [f"localhost:{ports[3]}"],
    }
    base = {**os.environ, **cfg["env"], "PYTHONUNBUFFERED": "1"}
    servers = []
    for role, index in (("ps", 0), ("worker", 0), ("worker", 1)):
        env = {
            **base,
            "TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": role, "index": index}}),
        }
        servers.append(
            subprocess.Popen(
                [sys.executable, str(script), *cfg["args"]],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
    env = {
        **base,
        "TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": "chief", "index": 0}}),
    }
    chief = subprocess.Popen(
        [sys.executable, str(script), *cfg["args"]],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        rate = steps_per_second(chief.stdout)
        if chief.wait() != 0:
            raise RuntimeError("chief failed")
    finally:
        for proc in servers:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cfg = json.loads(EXAMPLE.read_text())
    cfg["args"] = ["--steps", str(args.steps)]
    script = EXAMPLE.parent / cfg["script"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = folder / "quickstart.json"
        tasks = [{k: v for k, v in t.items() if k != "port"} for t in cfg["tasks"]]
        config.write_text(json.dumps({**cfg, "script": str(script), "tasks": tasks}))
        td, hand = [], []
        for n in range(args.repeats):
            td.append(through_tensordeck(config, folder, n))
            hand.append(by_hand(cfg, script))
    t, h = statistics.median(td), statistics.median(hand)
    print(
        f"quickstart, {args.steps} steps: tensordeck {t:.1f} steps/s, by hand {h:.1f} steps/s, "
        f"ratio {t / h:.2f} (aim >= 1.0)"
    )


if __name__ == "__main__":
    main()
