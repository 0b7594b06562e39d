"""Script compatibility: TF1 APIs on TF2, tf.estimator on 2.16+, Keras 3 + strategies."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.doctor.scriptscan import scan_script

TF1_PS = """\
import tensorflow as tf
flags = tf.app.flags
def main(_):
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0")):
        x = tf.placeholder(tf.float32, [None, 784])
    with tf.train.MonitoredTrainingSession(master="grpc://localhost:2222") as sess:
        pass
"""
COMPAT = """\
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [None, 784])
sess = tf.Session()
"""
KERAS_PS = """\
import tensorflow as tf
from tensorflow import keras
strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
with strategy.scope():
    model = keras.Sequential([keras.layers.Dense(1)])
model.fit(ds, epochs=2, steps_per_epoch=10)
"""
COORDINATOR = """\
import tensorflow as tf
strategy = tf.distribute.ParameterServerStrategy(resolver)
coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
coordinator.schedule(step_fn)
"""


def _write(tmp_path: Path, text: str, name: str = "train.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_tf1_apis_on_tf2(tmp_path: Path) -> None:
    [f] = scan_script(_write(tmp_path, TF1_PS), tf_version="2.21.0")
    assert f.id == "tf1-api-on-tf2"
    assert "train.py:2: tf.app.flags" in f.evidence
    assert "train.py:4: tf.train.replica_device_setter" in f.evidence
    assert "train.py:5: tf.placeholder" in f.evidence
    assert any(s.command == "tf_upgrade_v2 --infile train.py --outfile train_v2.py"
               for s in f.steps)


def test_tf1_apis_fine_on_tf1_and_through_compat(tmp_path: Path) -> None:
    assert scan_script(_write(tmp_path, TF1_PS), tf_version="1.15.0") == []
    assert scan_script(_write(tmp_path, COMPAT), tf_version="2.21.0") == []
    via_attr = "import tensorflow as tf\ns = tf.compat.v1.Session()\n"
    assert scan_script(_write(tmp_path, via_attr), tf_version="2.21.0") == []


def test_contrib_import(tmp_path: Path) -> None:
    [f] = scan_script(_write(tmp_path, "from tensorflow.contrib import slim\n"), tf_version="2.4")
    assert f.id == "tf1-api-on-tf2" and "tf.contrib.slim" in f.evidence


def test_estimator_removed_in_216(tmp_path: Path) -> None:
    src = "import tensorflow as tf\ne = tf.estimator.Estimator(model_fn=f)\n"
    [f] = scan_script(_write(tmp_path, src), tf_version="2.16.1")
    assert f.id == "keras3-strategy-unsupported" and "tf.estimator.Estimator" in f.evidence
    assert scan_script(_write(tmp_path, src), tf_version="2.15.0") == []


@pytest.mark.parametrize(("env", "packages", "expected"), [
    ({}, {"keras": "3.15.1"}, ["keras3-strategy-unsupported"]),
    ({"TF_USE_LEGACY_KERAS": "1"}, {"tf-keras": "2.21.0"}, []),
    # The variable alone does nothing without tf-keras installed.
    ({"TF_USE_LEGACY_KERAS": "1"}, {"keras": "3.15.1"}, ["keras3-strategy-unsupported"]),
])
def test_keras3_with_ps_strategy_and_fit(tmp_path: Path, env, packages, expected) -> None:
    found = scan_script(_write(tmp_path, KERAS_PS), tf_version="2.21.0", env=env,
                        packages=packages)
    assert [f.id for f in found] == expected
    if found:
        commands = "\n".join(s.command or "" for s in found[0].steps)
        assert 'pip install "tf-keras~=2.21.0"' in commands
        assert "TF_USE_LEGACY_KERAS=1" in commands


def test_keras3_fine_on_215_and_with_custom_loop(tmp_path: Path) -> None:
    assert scan_script(_write(tmp_path, KERAS_PS), tf_version="2.15.0") == []
    assert scan_script(_write(tmp_path, COORDINATOR), tf_version="2.21.0") == []


def test_launcher_strategy_counts(tmp_path: Path) -> None:
    src = "import keras\nmodel.fit(x, y)\n"
    found = scan_script(_write(tmp_path, src), tf_version="2.21", strategy="multi_worker_mirrored")
    assert [f.id for f in found] == ["keras3-strategy-unsupported"]
    assert scan_script(_write(tmp_path, src), tf_version="2.21", strategy="mirrored") == []


def test_python2_script_is_reported_not_crashed(tmp_path: Path) -> None:
    [f] = scan_script(_write(tmp_path, "print 'hello'\n"), tf_version="2.21")
    assert f.id == "script-not-parsed" and f.severity == "warning"
