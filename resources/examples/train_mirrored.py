"""All the GPUs of one machine, one process: ``MirroredStrategy`` with Keras ``fit``.

Each visible GPU holds a copy of the model and trains on its slice of every batch; after each
step the gradients are summed across the GPUs (the "cross-device ops") so the copies stay
equal. With no GPU the strategy runs one replica on the CPU, so the script runs anywhere.

The cross-device ops come from the config's ``cross_device_ops``, which TensorDeck exports as
``TENSORDECK_CROSS_DEVICE_OPS``:

* ``nccl``: NVIDIA's NCCL, fastest on Linux with several GPUs. Not available on Windows.
* ``hierarchical_copy``: copies through GPU memory; the usual choice on Windows.
* ``reduction_to_one_device``: sums on one device, then broadcasts; works on any setup.
* ``auto``: TensorDeck turns it into ``hierarchical_copy`` on Windows; elsewhere TensorFlow
  picks its own default.

Works with Keras 2 and Keras 3 (TensorFlow 2.10 to 2.21).

Run it:  tensordeck --run resources/examples/mirrored.json
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import tensorflow as tf

FEATURES = 8


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64, help="examples per GPU per step")
    return parser.parse_args()


def cross_device_ops(choice: str) -> tf.distribute.CrossDeviceOps | None:
    """The all-reduce named by TensorDeck's setting; None lets TensorFlow choose."""
    if choice == "nccl":
        return tf.distribute.NcclAllReduce()
    if choice == "hierarchical_copy":
        return tf.distribute.HierarchicalCopyAllReduce()
    if choice == "reduction_to_one_device":
        return tf.distribute.ReductionToOneDevice()
    if choice == "auto":
        return None
    sys.exit(
        f"train_mirrored.py: unknown TENSORDECK_CROSS_DEVICE_OPS {choice!r}; use auto, "
        "nccl, hierarchical_copy or reduction_to_one_device"
    )


def make_dataset(global_batch_size: int) -> tf.data.Dataset:
    """Synthetic two-class data (fixed seed): 4096 examples, nothing to download."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, FEATURES)).astype("float32")
    y = (x.sum(axis=1) > 0).astype("float32")
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(4096, seed=0).batch(global_batch_size)


def main() -> int:
    args = parse_args()
    choice = os.environ.get("TENSORDECK_CROSS_DEVICE_OPS", "auto")
    strategy = tf.distribute.MirroredStrategy(cross_device_ops=cross_device_ops(choice))
    print(f"{strategy.num_replicas_in_sync} replica(s), cross_device_ops={choice}", flush=True)

    with strategy.scope():
        model = tf.keras.Sequential(
            [
                tf.keras.Input(shape=(FEATURES,)),
                tf.keras.layers.Dense(32, activation="relu"),
                tf.keras.layers.Dense(1, activation="sigmoid"),
            ]
        )
        model.compile(
            optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
            loss="binary_crossentropy",
            metrics=["accuracy"],
        )

    # Keras splits each global batch across the replicas.
    global_batch_size = args.batch_size * strategy.num_replicas_in_sync
    # verbose=2: one line per epoch; progress bars are noise in a log file.
    # shuffle=False: the dataset already shuffles itself (Keras 3 warns otherwise).
    model.fit(make_dataset(global_batch_size), epochs=args.epochs, shuffle=False, verbose=2)

    run_dir = os.environ.get("TENSORDECK_RUN_DIR")
    if run_dir:
        path = os.path.join(run_dir, "model.weights.h5")
        model.save_weights(path)
        print(f"weights saved: {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
