"""Parameter-server training (TF2 ``ParameterServerStrategy``): TensorDeck's quickstart.

One script, three roles, told apart by the ``TF_CONFIG`` that TensorDeck gives each process:

* ``chief``  - the coordinator: builds the model, sends training steps to the workers and
  prints progress. The run ends when it exits.
* ``worker`` - runs the steps the chief sends. Only serves: it never exits by itself.
* ``ps``     - holds the model's variables. Only serves: it never exits by itself.

TensorDeck stops the workers and the ps once the chief is done. Works with TensorFlow 2.10 to
2.21, Keras 2 or Keras 3: the training loop is written by hand with ``ClusterCoordinator``,
because Keras 3 ``model.fit`` does not support parameter-server training.

Run it:  tensordeck --run resources/examples/quickstart.json
"""

from __future__ import annotations

import argparse
import os
import sys

import tensorflow as tf

FEATURES = 8


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="training steps in all")
    parser.add_argument("--batch-size", type=int, default=64, help="examples per step")
    parser.add_argument("--log-every", type=int, default=50, help="print the loss every N steps")
    parser.add_argument("--learning-rate", type=float, default=0.05)
    return parser.parse_args()


def serve(resolver: tf.distribute.cluster_resolver.ClusterResolver) -> None:
    """Worker and ps: start this task's gRPC server and wait until TensorDeck stops us."""
    server = tf.distribute.Server(
        resolver.cluster_spec(),
        job_name=resolver.task_type,
        task_index=resolver.task_id,
        protocol=resolver.rpc_layer or "grpc",
        start=True,
    )
    print(f"{resolver.task_type}:{resolver.task_id} serving at {server.target}", flush=True)
    server.join()


def make_dataset(batch_size: int) -> tf.data.Dataset:
    """Endless synthetic regression data: y = x . w_true + 1 + noise (nothing to download)."""
    w_true = tf.range(1.0, FEATURES + 1.0)[:, None] / FEATURES

    def batch(_):
        x = tf.random.normal([batch_size, FEATURES])
        y = x @ w_true + 1.0 + 0.05 * tf.random.normal([batch_size, 1])
        return x, y

    return tf.data.Dataset.range(1).repeat().map(batch).prefetch(2)


def train(
    resolver: tf.distribute.cluster_resolver.ClusterResolver, args: argparse.Namespace
) -> None:
    """Chief: place the variables on the ps tasks, run the steps on the workers."""
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

    with strategy.scope():
        # Variables created in this scope live on the ps tasks.
        model = tf.keras.Sequential(
            [
                tf.keras.Input(shape=(FEATURES,)),
                tf.keras.layers.Dense(16, activation="relu"),
                tf.keras.layers.Dense(1),
            ]
        )
        optimizer = tf.keras.optimizers.SGD(learning_rate=args.learning_rate)

    # Each worker builds its own copy of the input pipeline.
    per_worker_dataset = coordinator.create_per_worker_dataset(
        lambda: make_dataset(args.batch_size)
    )
    per_worker_iterator = iter(per_worker_dataset)

    @tf.function
    def train_step(iterator):
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            # No zip(strict=): TF 2.10, the Windows GPU version, also runs on Python 3.7-3.9.
            optimizer.apply_gradients(zip(grads, model.trainable_variables))  # noqa: B905
            return loss

        x, y = next(iterator)
        return strategy.run(step, args=(x, y))

    # schedule() returns at once; a free worker picks the step up. join() waits for all
    # scheduled steps, so we print one line per chunk of --log-every steps.
    done = 0
    while done < args.steps:
        chunk = min(args.log_every, args.steps - done)
        losses = [
            coordinator.schedule(train_step, args=(per_worker_iterator,)) for _ in range(chunk)
        ]
        coordinator.join()
        done += chunk
        mean_loss = sum(float(loss.fetch()) for loss in losses) / chunk
        print(f"step {done}/{args.steps} loss={mean_loss:.4f}", flush=True)

    save_checkpoint(model)


def save_checkpoint(model: tf.keras.Model) -> None:
    """Write the trained variables under the run folder TensorDeck made for this run."""
    run_dir = os.environ.get("TENSORDECK_RUN_DIR")
    if not run_dir:
        print("TENSORDECK_RUN_DIR is not set: checkpoint not saved", flush=True)
        return
    path = tf.train.Checkpoint(model=model).write(os.path.join(run_dir, "checkpoints", "model"))
    print(f"checkpoint saved: {path}", flush=True)


def main() -> int:
    args = parse_args()
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    role = resolver.task_type
    if role in ("worker", "ps"):
        serve(resolver)
    elif role == "chief":
        train(resolver, args)
    else:
        sys.exit(
            f"train_ps.py: needs TF_CONFIG with task type chief, worker or ps, got {role!r}; "
            "start it with: tensordeck --run quickstart.json"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
