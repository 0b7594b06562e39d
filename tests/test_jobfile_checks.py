"""core.jobfile.run_problems: an editor's document checked as ``tensordeck validate`` checks
the file, changing nothing (the ports it binds are released)."""

from __future__ import annotations

import json
import socket
import sys

from core.jobfile import run_problems
from tests.conftest import tensordeck


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        return probe.getsockname()[1]


def test_the_document_gets_validates_verdict_and_its_ports_come_back(tmp_path):
    (tmp_path / "train.py").write_text("print('x')\n")
    path = tmp_path / "job.json"
    port = _free_port()
    for python, expected_where in (("/bin/ls", ["python"]), (sys.executable, [])):
        data = {"name": "t", "strategy": "parameter_server", "script": "train.py",
                "python": python, "tasks": [{"role": "chief", "port": port},
                                            {"role": "worker"}, {"role": "ps"}]}
        problems, _warnings = run_problems(data, path)
        assert [p.where for p in problems] == expected_where
        path.write_text(json.dumps(data))
        cli = tensordeck("validate", str(path), timeout=120)
        assert cli.returncode == (2 if problems else 0)
        assert [line.split(": ", 1)[1] for line in cli.stderr.splitlines()
                if line.startswith(str(path))] == [str(p) for p in problems]
        with socket.socket() as again:  # released: the run could take it
            again.bind(("", port))
    assert not (tmp_path / "runs").exists()  # no run folder was made
