"""Between-graph replication, TF1 style (``tf.compat.v1``): ps tasks + workers, no chief task.

The classic design of TensorFlow 1 cluster scripts, still runnable on TensorFlow 2.10 to 2.21:

* every worker builds its own copy of the graph; ``replica_device_setter`` puts the variables
  on the ps tasks and the computation on the worker itself;
* each worker trains asynchronously until the shared ``global_step`` reaches ``--steps``;
* worker 0 is the chief: it initialises the variables and writes the checkpoints;
* the ps tasks only serve (``server.join()``): they never exit, TensorDeck stops them once
  every worker has finished.

The cluster comes from the legacy flags ``--job_name --task_index --ps_hosts --worker_hosts``,
which TensorDeck appends for you (``"cluster_spec": "flags"``).

Run it:  tensordeck --run resources/examples/between_graph.json
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import tensorflow as tf

FEATURES = 8


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job_name", choices=["ps", "worker"], required=True)
    parser.add_argument("--task_index", type=int, required=True)
    parser.add_argument("--ps_hosts", required=True, help="host:port,host:port,...")
    parser.add_argument("--worker_hosts", required=True, help="host:port,host:port,...")
    parser.add_argument(
        "--steps", type=int, default=1000, help="global steps, all workers together"
    )
    parser.add_argument("--batch-size", type=int, default=64, help="examples per step")
    parser.add_argument("--log-every", type=int, default=100, help="print the loss every N steps")
    parser.add_argument("--learning-rate", type=float, default=0.05)
    return parser.parse_args()


def session_config(job_name: str, task_index: int) -> tf.compat.v1.ConfigProto:
    """Let a task see only the ps tasks and itself.

    Without device filters a session waits until *every* task of the cluster answers: no
    worker starts before all are up, and a worker (re)started after another one has finished
    and exited waits for it forever.
    """
    return tf.compat.v1.ConfigProto(
        device_filters=["/job:ps", f"/job:{job_name}/task:{task_index}"]
    )


def dense(name: str, inputs: tf.Tensor, units: int) -> tf.Tensor:
    """A plain fully connected layer (``tf.compat.v1.layers`` is gone under Keras 3)."""
    with tf.compat.v1.variable_scope(name):
        kernel = tf.compat.v1.get_variable(
            "kernel",
            [inputs.shape[-1], units],
            initializer=tf.compat.v1.glorot_uniform_initializer(),
        )
        bias = tf.compat.v1.get_variable(
            "bias", [units], initializer=tf.compat.v1.zeros_initializer()
        )
    return tf.matmul(inputs, kernel) + bias


def build_graph(args: argparse.Namespace, cluster: tf.train.ClusterSpec):
    """Variables on the ps tasks (round-robin), the computation on this worker."""
    device = tf.compat.v1.train.replica_device_setter(
        worker_device=f"/job:worker/task:{args.task_index}", cluster=cluster
    )
    with tf.compat.v1.device(device):
        global_step = tf.compat.v1.train.get_or_create_global_step()

        # Synthetic regression data made inside the graph: y = x . w_true + 1 + noise.
        w_true = tf.range(1.0, FEATURES + 1.0)[:, None] / FEATURES
        x = tf.random.normal([args.batch_size, FEATURES])
        y = tf.matmul(x, w_true) + 1.0 + 0.05 * tf.random.normal([args.batch_size, 1])

        hidden = tf.nn.relu(dense("hidden", x, 16))
        prediction = dense("output", hidden, 1)
        loss = tf.reduce_mean(tf.square(prediction - y))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(args.learning_rate).minimize(
            loss, global_step=global_step
        )
    return global_step, loss, train_op


def train(
    args: argparse.Namespace,
    cluster: tf.train.ClusterSpec,
    server: tf.distribute.Server,
    config: tf.compat.v1.ConfigProto,
) -> None:
    global_step, loss, train_op = build_graph(args, cluster)
    is_chief = args.task_index == 0
    run_dir = os.environ.get("TENSORDECK_RUN_DIR")
    # Only the chief writes checkpoints; everyone stops once global_step reaches --steps.
    checkpoint_dir = os.path.join(run_dir, "checkpoints") if is_chief and run_dir else None
    hooks = [tf.compat.v1.train.StopAtStepHook(last_step=args.steps)]
    if not is_chief:
        wait_for_chief(server, config)

    with tf.compat.v1.train.MonitoredTrainingSession(
        master=server.target,
        is_chief=is_chief,
        checkpoint_dir=checkpoint_dir,
        hooks=hooks,
        config=config,
        log_step_count_steps=None,
        save_summaries_steps=None,
        save_summaries_secs=None,
    ) as session:
        my_steps = last = 0
        while not session.should_stop():
            _, step, loss_value = session.run([train_op, global_step, loss])
            my_steps += 1
            # Both workers move the same global_step, so print when it crosses a multiple.
            if step // args.log_every > last // args.log_every:
                print(f"step {step}/{args.steps} loss={loss_value:.4f}", flush=True)
            last = step
    # Asynchronous training: each worker runs its own share of the global steps.
    if my_steps:
        print(f"worker:{args.task_index} done at global_step {last}, {my_steps} steps run here")
    else:
        print(f"worker:{args.task_index}: nothing to do, global_step had reached {args.steps}")


def wait_for_chief(server: tf.distribute.Server, config: tf.compat.v1.ConfigProto) -> None:
    """Poll until the chief has initialised the variables on the ps tasks.

    MonitoredTrainingSession does this too, but re-checks only every 30 seconds: on a short
    job the other workers would sit idle for most of the run.
    """
    uninitialized = tf.compat.v1.report_uninitialized_variables()
    with tf.compat.v1.Session(server.target, config=config) as session:
        while session.run(uninitialized).size:
            time.sleep(0.5)


def main() -> int:
    args = parse_args()
    tf.compat.v1.disable_eager_execution()
    cluster = tf.train.ClusterSpec(
        {
            "ps": args.ps_hosts.split(","),
            "worker": args.worker_hosts.split(","),
        }
    )
    config = session_config(args.job_name, args.task_index)
    server = tf.distribute.Server(
        cluster, job_name=args.job_name, task_index=args.task_index, config=config
    )
    if args.job_name == "ps":
        print(f"ps:{args.task_index} serving at {server.target}", flush=True)
        server.join()
    else:
        train(args, cluster, server, config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
