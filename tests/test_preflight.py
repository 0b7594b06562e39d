"""The doctor's checks before a run: errors stop it before anything starts; --no-doctor
overrides; the Keras 3 + strategy trap and TF1 APIs are caught from the script itself."""

from __future__ import annotations

import re

import pytest

from tests.conftest import installed_tf_version, tensordeck

TF1_SCRIPT = """
import sys

def legacy_graph():
    import tensorflow as tf
    return tf.placeholder(tf.float32, [None, 8])

print("started")
"""

KERAS_FIT_SCRIPT = """
def train():
    import tensorflow as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit([[0.0]], [[0.0]], epochs=1)

print("started")
"""


def test_tf1_api_on_tf2_stops_the_run_before_it_starts(job):
    config = job(TF1_SCRIPT, strategy="single", tasks=[{"role": "worker"}])
    result = tensordeck("--run", str(config))
    assert result.returncode == 2
    assert "[tf1-api-on-tf2]" in result.stderr and "tf.placeholder" in result.stderr
    assert "nothing was started" in result.stderr
    assert not (config.parent / "runs").exists()
    assert tensordeck("validate", str(config)).returncode == 2


def test_no_doctor_starts_anyway(job):
    config = job(TF1_SCRIPT, strategy="single", tasks=[{"role": "worker"}])
    result = tensordeck("--run", str(config), "--no-doctor")
    assert result.returncode == 0
    assert "[worker-0] started" in result.stdout


def test_keras3_fit_under_multi_worker_needs_legacy_keras(job):
    # The job runs this interpreter: its installed TensorFlow decides whether Keras 3 applies
    # (none installed: the doctor assumes a current TF 2, so the finding applies too).
    tf_version = installed_tf_version()
    if tf_version and tuple(map(int, re.findall(r"\d+", tf_version)[:2])) < (2, 16):
        pytest.skip(f"the test interpreter has TensorFlow {tf_version} (Keras 2): the Keras 3 "
                    "findings apply to TensorFlow 2.16+ only")
    tasks = [{"role": "worker", "count": 2}]
    config = job(KERAS_FIT_SCRIPT, strategy="multi_worker_mirrored", tasks=tasks)
    result = tensordeck("validate", str(config))
    assert result.returncode == 2
    assert "[keras3-strategy-unsupported]" in result.stderr
    assert "TF_USE_LEGACY_KERAS" in result.stderr
    config = job(
        KERAS_FIT_SCRIPT,
        strategy="multi_worker_mirrored",
        tasks=tasks,
        env={"TF_USE_LEGACY_KERAS": "1"},
    )
    result = tensordeck("validate", str(config))
    assert result.returncode == 0, result.stderr
