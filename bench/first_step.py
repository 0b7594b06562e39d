"""Time to the first training step: a real Keras script through ``tensordeck --run`` versus
``python script.py`` with the same interpreter, from the command's start to the moment the
script says its first step is done (a line it prints from a Keras callback).

This is the launch figure a user feels: TensorDeck's own start (config, plan, doctor's cached
verdict, run folder, supervisor) plus TensorFlow's import and the first step, against TF's
import and first step alone. Prints the ratio of the medians (aim <= 1.03); runs alternate so
that drift hits both sides alike.

    python bench/first_step.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, TENSORDECK, write_job

MARK = "first training step done"
SCRIPT = f"""
import os
import numpy as np
import tensorflow as tf


class FirstStep(tf.keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        print({MARK!r}, flush=True)
        os._exit(0)  # the figure ends here: what follows is the same on both sides


model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(64, activation="relu"),
                             tf.keras.layers.Dense(10)])
model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
x = np.random.rand(512, 32).astype("float32")
y = np.random.randint(0, 10, 512)
model.fit(x, y, batch_size=64, epochs=1, verbose=0, callbacks=[FirstStep()])
"""


def to_first_step(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds from starting ``cmd`` to the line that says the first step is done."""
    start = time.perf_counter()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=env, cwd=REPO) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if MARK in line:
                seconds = time.perf_counter() - start
                proc.stdout.read()  # to its end: the run's folder is written whole
                break
        else:
            raise RuntimeError(f"{cmd[-1]}: no first step (exit {proc.wait()})")
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {proc.returncode}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = write_job(folder, SCRIPT, strategy="single")
        runs = iter(range(10_000))
        plain = [sys.executable, str(folder / "task.py")]
        # Once before timing: the doctor's verdict and the checked config are then cached,
        # as for a job a user runs again.
        to_first_step([*TENSORDECK, "--run", str(config), "--run-dir", str(folder / "warm")], env)
        to_first_step(plain, env)
        td, py = [], []
        for _ in range(args.repeats):
            run_dir = folder / f"run-{next(runs)}"
            td.append(to_first_step([*TENSORDECK, "--run", str(config), "--run-dir",
                                     str(run_dir)], env))
            py.append(to_first_step(plain, env))
    a, b = statistics.median(td), statistics.median(py)
    print(f"first training step: tensordeck --run {a:.2f} s, python script.py {b:.2f} s, "
          f"ratio {a / b:.3f} (aim <= 1.03; {args.repeats} runs each, "
          f"tensordeck {min(td):.2f}-{max(td):.2f} s, python {min(py):.2f}-{max(py):.2f} s)")


if __name__ == "__main__":
    main()
