"""Synchronous data-parallel training on several processes: ``MultiWorkerMirroredStrategy``.

Every worker holds a full copy of the model and trains on its own share of each batch; the
gradients are all-reduced between the workers after every step, so all copies stay equal.
Worker 0 is the chief (it would write summaries and the final model). Every worker must run to
the end: the run ends when all workers have exited.

Keras version: on TensorFlow 2.16+ ``tf.keras`` is Keras 3, whose ``model.fit`` fails under this
strategy (TF 2.21 + Keras 3.15: "unsupported type PerReplica"). This example therefore needs
Keras 2: ``pip install tf-keras`` (same minor version as TensorFlow) and the environment
variable ``TF_USE_LEGACY_KERAS=1``, which ``multi_worker.json`` sets. TensorFlow 2.10 to 2.15
ship Keras 2 and need neither.

Run it:  tensordeck --run resources/examples/multi_worker.json
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import tensorflow as tf

FEATURES = 8

#: TensorDeck's cross_device_ops setting -> the collective implementation across workers.
#: NCCL only where it exists (not on Windows): RING is gRPC-based and works everywhere.
COMMUNICATION = {
    "auto": tf.distribute.experimental.CommunicationImplementation.AUTO,
    "nccl": tf.distribute.experimental.CommunicationImplementation.NCCL,
    "hierarchical_copy": tf.distribute.experimental.CommunicationImplementation.RING,
    "reduction_to_one_device": tf.distribute.experimental.CommunicationImplementation.RING,
}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps-per-epoch", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32, help="examples per worker per step")
    return parser.parse_args()


def require_keras2() -> None:
    # keras.version() exists only in Keras 3 (tf-keras and the Keras 2 of TF <= 2.15 lack it).
    if hasattr(tf.keras, "version"):
        sys.exit(
            "train_multi_worker.py: Keras 3 model.fit does not work with "
            "MultiWorkerMirroredStrategy. Install tf-keras (pip install tf-keras) and set "
            'TF_USE_LEGACY_KERAS=1 (the "env" of multi_worker.json does).'
        )


def make_dataset(global_batch_size: int) -> tf.data.Dataset:
    """Synthetic two-class data, identical on every worker (fixed seed); each worker then
    takes its own share of every batch (auto-shard by DATA)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, FEATURES)).astype("float32")
    y = (x.sum(axis=1) > 0).astype("float32")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(4096, seed=0).repeat()
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return dataset.batch(global_batch_size).with_options(options)


def main() -> int:
    args = parse_args()
    require_keras2()
    choice = os.environ.get("TENSORDECK_CROSS_DEVICE_OPS", "auto")
    # Reads TF_CONFIG and starts this worker's gRPC server: create it before anything else.
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        communication_options=tf.distribute.experimental.CommunicationOptions(
            implementation=COMMUNICATION[choice]
        )
    )
    print(
        f"{strategy.num_replicas_in_sync} replicas in sync, cross_device_ops={choice}: "
        f"{COMMUNICATION[choice].name} collectives",
        flush=True,
    )

    with strategy.scope():
        model = tf.keras.Sequential(
            [
                tf.keras.Input(shape=(FEATURES,)),
                tf.keras.layers.Dense(16, activation="relu"),
                tf.keras.layers.Dense(1, activation="sigmoid"),
            ]
        )
        model.compile(
            optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
            loss="binary_crossentropy",
            metrics=["accuracy"],
        )

    callbacks = []
    run_dir = os.environ.get("TENSORDECK_RUN_DIR")
    if run_dir:
        # Keeps the last finished epoch in the run folder: restarted workers resume from it.
        callbacks.append(tf.keras.callbacks.BackupAndRestore(os.path.join(run_dir, "backup")))
    # verbose=2: one line per epoch; progress bars are noise in a log file.
    model.fit(
        make_dataset(args.batch_size * strategy.num_replicas_in_sync),
        epochs=args.epochs,
        steps_per_epoch=args.steps_per_epoch,
        callbacks=callbacks,
        verbose=2,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
