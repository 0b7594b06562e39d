"""The doctor's remembered clean verdicts (core.doctor.clean): a job found clean is not checked
again while nothing it was checked on changed; a change of the script is checked at once."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from core.session import DoctorRefused, RunSession

#: Runs the doctor's gate in a fresh interpreter; prints whether its rules were loaded.
GATE = """
import sys
from core.session import RunSession
session = RunSession(sys.argv[1])
print(session.check(), "core.doctor.prerun" in sys.modules)
session.close()
"""


def gate(job) -> str:
    done = subprocess.run([sys.executable, "-c", GATE, str(job)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[-2]


@pytest.fixture
def job(tmp_path):
    (tmp_path / "train.py").write_text("import tensorflow as tf\nprint(tf.constant(1))\n")
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "train.py"}))
    return path


def test_a_clean_job_is_not_checked_again(job):
    assert gate(job) == "[] True"  # checked: clean
    assert gate(job) == "[] False"  # remembered: the rules were not even loaded


def test_an_edited_script_is_checked_at_once(job):
    RunSession(job).check()
    (job.parent / "train.py").write_text("import tensorflow as tf\nsess = tf.Session()\n")
    session = RunSession(job)
    with pytest.raises(DoctorRefused) as refused:
        session.check()
    session.close()
    assert any(f.id == "tf1-api-on-tf2" for f in refused.value.findings)
