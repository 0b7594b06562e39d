"""A run on a Slurm cluster (``tensordeck --run FILE --slurm``): one Slurm job for the whole
cluster, one job step per task.

    check (tools, controller, munge, partition, GPUs: nothing submitted when it fails)
      -> allocate (``salloc``: one job of every task) -> hosts (the job's node list)
      -> ports (picked on each node by a short step) -> each task's command becomes
         ``srun --jobid=J --nodelist=HOST ... <its command>``

The supervisor then runs one local stand-in per task (core.slurm.stand_in: its ``srun``, as
LAN tasks have theirs): the same logs, prefixes, stop rules and exit codes as a local run.
srun exits with its task's status; the stand-in turns a stop into the task's SIGTERM.
:meth:`Allocation.release` cancels the job at the end, whatever happened, and waits until Slurm
has let it go.

Every Slurm command goes through a :class:`~core.slurm.where.SlurmHost`: this machine's
(``--slurm``) or the login node's over SSH (``--slurm-login``, core.slurm.login, which also
puts the script and the runtime module in a run folder on the cluster's shared file system).

Steps share the allocation's CPUs (``--overlap``): a ps and its workers wait on each other, and
a step that waits for free CPUs would never start. Tasks are placed in blocks, in start order.
TF's ``SlurmClusterResolver`` does the same from inside one step; here the cluster is known
before any task starts, so TF_CONFIG or the legacy flags are built as for a local run.
"""

from __future__ import annotations

import math
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field

from core.config import ConfigError, ConfigProblem, SlurmOptions, show
from core.output import control_character
from core.placements import stand_in_head
from core.placements.slurm import ClusterPlace, InSlurmJob
from core.plan import RunPlan, expand_tasks
from core.slurm.where import CLIENT_SECONDS, LocalSlurm, SlurmHost, SlurmProcess

#: The plan's thread budget (core.topology._thread_budget), which is this machine's.
THREAD_DEFAULTS = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS")

TOOLS = ("salloc", "sbatch", "srun", "scancel", "scontrol", "sinfo", "squeue")
#: How long a cancelled job may take to leave the queue (KillWait is 30 s by default).
RELEASE_SECONDS = 60.0
#: How long salloc gets to give its job up by itself.
HOLDER_SECONDS = 10.0
#: When a queued job is said to wait again: after this many seconds, then twice as long each
#: time, at most every QUEUED_MAX_SECONDS (a night in the queue says a few dozen lines).
QUEUED_FIRST_SECONDS = 30.0
QUEUED_MAX_SECONDS = 600.0
_JOB_RE = re.compile(r"job allocation (\d+)")
_GPU_GRES_RE = re.compile(r"gpu(?::[^:,(]+)?:(\d+)")
#: Run on each node by its ports step: binds N free ports at once (so they differ), prints them.
PICK_PORTS = (
    "import socket,sys\n"
    "s=[socket.socket() for _ in range(int(sys.argv[1]))]\n"
    "[x.bind(('', 0)) for x in s]\n"
    "print(' '.join(str(x.getsockname()[1]) for x in s))\n"
)


def _problem(plan: RunPlan, where: str, message: str) -> ConfigError:
    return ConfigError(str(plan.config_path), [ConfigProblem(where=where, message=message)])


def _said(result: subprocess.CompletedProcess) -> str:
    return " ".join((result.stderr or result.stdout).split())[:300] or f"exit {result.returncode}"


def options_of(plan: RunPlan) -> SlurmOptions:
    return plan.config.slurm or SlurmOptions()


def check_cluster(plan: RunPlan, host: SlurmHost | None = None) -> None:
    """Whether this job can be submitted from ``host`` (default: this machine): Slurm's
    commands, the controller and munge answering, the partition, the GPUs. ConfigError (exit
    2) naming the fix otherwise."""
    host = host or LocalSlurm()
    missing = host.missing(TOOLS)
    if missing:
        raise _problem(plan, host.option, f"{', '.join(missing)} not found {host.missing_fix()}")
    if plan.node_tasks:
        raise _problem(plan, "nodes", "a Slurm run places every task itself: leave out the "
                       "tasks' 'node' (or run without --slurm)")
    if not all(plan.runs_here(t) for t in plan.tasks):  # an interpreter inside WSL
        raise _problem(plan, "python", "a Slurm run starts its tasks on the cluster's nodes, "
                       "with an interpreter there: give that one's path (or run without --slurm)")
    _check_partition(plan, *_partition_gpus(_sinfo(plan, host)))
    _test_only(plan, host)


def _sinfo(plan: RunPlan, host: SlurmHost) -> str:
    """sinfo's partitions and their GRES (``name|gres`` lines), or ConfigError naming what to
    start: the controller, or munge."""
    try:
        result = host.run(["sinfo", "--noheader", "--format=%P|%G"])
    except subprocess.TimeoutExpired:
        raise _problem(plan, host.option, "the Slurm controller did not answer within "
                       f"{CLIENT_SECONDS:.0f} s: check slurmctld (scontrol ping)") from None
    if result.returncode != 0:
        said = _said(result)
        fix = ("munge is not running or its key differs from the controller's: start munged "
               "(systemctl start munge)" if "munge" in said.lower() else
               "the Slurm controller does not answer: start slurmctld, or point SLURM_CONF at "
               "the cluster's slurm.conf (scontrol ping)")
        raise _problem(plan, host.option, f"{fix} (sinfo on {host.label}: {said})")
    return result.stdout


def _partition_gpus(sinfo: str) -> tuple[dict[str, int], str | None]:
    """The GPUs per node of each partition in sinfo's lines, and the default partition (the
    one sinfo marks with ``*``)."""
    gpus: dict[str, int] = {}
    default = None
    for line in sinfo.splitlines():
        name, _, gres = line.strip().partition("|")
        if name.endswith("*"):
            name = default = name[:-1]
        found = [int(n) for n in _GPU_GRES_RE.findall(gres)]
        gpus[name] = max(gpus.get(name, 0), sum(found))
    return gpus, default


def _check_partition(plan: RunPlan, gpus: dict[str, int], default: str | None) -> None:
    """The job's partition exists (or the cluster has a default) and has the GPUs per task
    it asks for; ConfigError naming the field otherwise."""
    options = options_of(plan)
    partition = options.partition or default
    if options.partition and options.partition not in gpus:
        raise _problem(plan, "slurm.partition", f"no partition {options.partition!r} on this "
                       f"cluster (partitions: {', '.join(gpus) or 'none'}); name one of them")
    if partition is None:
        raise _problem(plan, "slurm.partition", "this cluster has no default partition: name "
                       f"one (partitions: {', '.join(gpus) or 'none'})")
    wanted = options.gpus_per_task or 0
    if wanted > gpus.get(partition, 0):
        raise _problem(plan, "slurm.gpus_per_task", f"{wanted} GPU(s) per task, but the nodes "
                       f"of partition {partition!r} have at most {gpus.get(partition, 0)}: ask "
                       "for fewer, or choose a partition with GPUs")


def _test_only(plan: RunPlan, host: SlurmHost) -> None:
    """Ask Slurm whether it would ever start the job (``sbatch --test-only``, nothing is
    submitted): salloc queues a job the partition can never hold (more tasks than its CPUs)
    and waits for ever."""
    tested = host.run(["sbatch", "--test-only", *submit_options(plan), "--wrap=true"])
    if tested.returncode != 0:
        raise _problem(plan, "slurm", f"Slurm refused the job ({len(plan.tasks)} tasks; sbatch "
                       f"--test-only: {_said(tested)}): ask for what the partition has (fewer "
                       "tasks, GPUs or time), or choose another partition")


def submit_options(plan: RunPlan) -> list[str]:
    """The job's options, as salloc and sbatch both take them. ConfigError naming the field for
    a value an ``#SBATCH`` line cannot carry as one word (:func:`sbatch_word_problem`): the
    same rule for both, so a job runs by ``--slurm`` exactly when its export does."""
    options = options_of(plan)
    fields = [("name", f"--job-name={plan.config.name}"), ("", f"--ntasks={len(plan.tasks)}")]
    if options.partition:
        fields.append(("slurm.partition", f"--partition={options.partition}"))
    if options.account:
        fields.append(("slurm.account", f"--account={options.account}"))
    if options.time_limit:
        fields.append(("slurm.time_limit", f"--time={options.time_limit}"))
    if options.gpus_per_task:
        fields.append(("", f"--gpus={options.gpus_per_task * len(_gpu_tasks(plan))}"))
    fields += [(f"slurm.extra_sbatch[{i}]", o) for i, o in enumerate(options.extra_sbatch)]
    problems = [ConfigProblem(where, f"{problem}: Slurm cannot take it in an #SBATCH line; "
                              f"{SBATCH_FIX.get(where, SBATCH_FIX['slurm'])}")
                for where, option in fields if (problem := sbatch_word_problem(option))]
    if problems:
        raise ConfigError(str(plan.config_path), problems)
    return [option for _, option in fields]


#: How to fix a value :func:`submit_options` refuses, by field (``slurm``: the others).
SBATCH_FIX = {
    "name": "rename the job (letters, digits, '-', '_', '.')",
    "slurm": "write it without spaces, quotes, '\\' or '#'",
}
#: What sbatch's #SBATCH reader takes for other than a character of the word: it splits words
#: at white space, removes quotes and backslashes, and ends the line at '#'.
_SBATCH_SPECIAL = re.compile(r"[\s'\"\\#]")


def sbatch_word_problem(option: str) -> str | None:
    """Why ``option`` is no single word of an ``#SBATCH`` line (None when it is one)."""
    if control := control_character(option):
        return f"{show(option)!r} holds the control character {control}"
    if special := _SBATCH_SPECIAL.search(option):
        return f"{show(option)!r} holds {special.group()!r}"
    return None


def _gpu_tasks(plan: RunPlan) -> list[str]:
    return [t.key for t in plan.tasks if t.role != "ps"]


@dataclass
class Allocation:
    """The Slurm job that holds a run's tasks, the salloc that holds it, and where they run
    (closed by :meth:`release`)."""

    job_id: str
    holder: SlurmProcess | None = None
    host: SlurmHost = field(default_factory=LocalSlurm)
    #: The run's plan placed in the job (:func:`allocate`).
    plan: RunPlan | None = None

    def release(self) -> None:
        """End the job (its steps with it) and wait until Slurm has let it go. salloc gives it
        up first, as it does when the launcher dies; scancel then makes sure. A salloc that
        outlives its job is killed: seen spinning after a scancel raced its own release."""
        if self.holder is not None:
            # Closes salloc's stdin: its command ends, salloc gives the job up.
            with suppress(subprocess.TimeoutExpired):
                self.holder.communicate(timeout=HOLDER_SECONDS)
        try:
            self.host.run(["scancel", self.job_id])
            deadline = time.monotonic() + RELEASE_SECONDS
            while time.monotonic() < deadline:
                left = self.host.run(["squeue", "--noheader", f"--jobs={self.job_id}",
                                      "--format=%T"])
                if left.returncode != 0 or not left.stdout.strip():  # gone (unknown id fails)
                    break
                time.sleep(0.2)
        finally:
            if self.holder is not None and self.holder.poll() is None:
                self.holder.kill()
                self.holder.communicate()
            self.host.close()


#: ``on_queued(job, reason, waited)``: the job waits in the queue: its id, Slurm's reason
#: (squeue's %r: Resources, Priority, BeginTime ...) and the seconds it has waited so far.
OnQueued = Callable[[str, str, float], None]


def _hold(plan: RunPlan, host: SlurmHost,
          on_submit: Callable[[Callable[[], None]], None] | None,
          on_queued: OnQueued | None = None) -> Allocation:
    """Submit the job and wait until Slurm grants it (no timeout: a busy cluster queues it).
    salloc holds the job while its command runs, and the command is ``cat`` of a pipe only
    this launcher writes to: when the launcher closes it, or is killed outright (``kill -9``),
    cat ends and salloc gives the job up. salloc has a session of its own (a Ctrl+C is the
    launcher's to handle: while queued, it withdraws the job). Over SSH, the channel is the
    pipe: it closes when the launcher dies. ``on_submit`` gets a function that withdraws the
    job from another thread (SIGINT: salloc revokes it, queued or not); ``on_queued`` hears
    that the job is queued, then again now and then (:func:`_watch_queue`). However this ends
    but granted (withdrawn, refused, an exception), the job is cancelled."""
    holder = host.hold(["salloc", *submit_options(plan), "cat"])
    assert holder.stderr is not None
    if on_submit is not None:
        def withdraw() -> None:
            if holder.poll() is None:
                holder.send_signal(signal.SIGINT)

        on_submit(withdraw)
    said: list[str] = []
    job = None
    queued: threading.Event | None = None
    try:
        for line in holder.stderr:  # "Pending job allocation 7", ..., "Granted job allocation 7"
            said.append(line.strip())
            if found := _JOB_RE.search(line):
                job = found.group(1)
            if "Granted job allocation" in line and job:
                return Allocation(job, holder, host)
            if "queued and waiting" in line and job and on_queued and queued is None:
                queued = _watch_queue(job, host, on_queued)
    except BaseException:
        if job:
            Allocation(job, holder, host).release()
        holder.kill()
        holder.communicate()
        raise
    finally:
        if queued is not None:
            queued.set()
    raise _refusal(plan, holder, host, job, said)


def _refusal(plan: RunPlan, holder: SlurmProcess, host: SlurmHost, job: str | None,
             said: list[str]) -> ConfigError:
    """What salloc said when it ended without a grant, once it has ended and the job it
    named (if any) is cancelled: nothing is left submitted."""
    holder.communicate()
    if job:
        Allocation(job, holder, host).release()
    words = " ".join(" ".join(said).split())[:300] or f"exit {holder.returncode}"
    return _problem(plan, "slurm", f"Slurm refused the job: {words}")


def _watch_queue(job: str, host: SlurmHost, on_queued: OnQueued) -> threading.Event:
    """Tell ``on_queued`` that ``job`` is queued, at once and then after QUEUED_FIRST_SECONDS,
    twice as long each time (at most QUEUED_MAX_SECONDS), until the event returned is set."""
    done = threading.Event()

    def watch() -> None:
        started = time.monotonic()
        for pause in queue_pauses():
            on_queued(job, _queue_reason(host, job), time.monotonic() - started)
            if done.wait(pause):
                return

    threading.Thread(target=watch, name="tensordeck-slurm-queued", daemon=True).start()
    return done


def queue_pauses() -> Iterator[float]:
    """The pauses between two reports of a queued job: QUEUED_FIRST_SECONDS, then twice the
    one before, at most QUEUED_MAX_SECONDS."""
    pause = QUEUED_FIRST_SECONDS
    while True:
        yield pause
        pause = min(pause * 2, QUEUED_MAX_SECONDS)


def _queue_reason(host: SlurmHost, job: str) -> str:
    """Why Slurm has not started ``job`` yet, in its words ("?" when it does not answer)."""
    try:
        result = host.run(["squeue", "--noheader", f"--jobs={job}", "--format=%r"], timeout=30)
    except subprocess.TimeoutExpired:
        return "?"
    return result.stdout.strip() or "?"


def allocate(plan: RunPlan, host: SlurmHost | None = None,
             on_submit: Callable[[Callable[[], None]], None] | None = None,
             on_queued: OnQueued | None = None) -> Allocation:
    """Submit the job from ``host`` (default: this machine) and wait until Slurm grants it,
    then place every task: its host, its port (picked there), its ``srun`` command. The
    allocation owns ``host`` (its release closes it). ConfigError when Slurm refuses the job
    (or it was withdrawn by the function given to ``on_submit``); nothing is left submitted
    then. ``on_queued``: see :func:`_hold`."""
    host = host or LocalSlurm()
    allocation = _hold(plan, host, on_submit, on_queued)
    try:
        allocation.plan = _place(plan, allocation.job_id, host)
    except BaseException:
        allocation.release()
        raise
    return allocation


def task_step(job_id: str, host: str, name: str, srun: str = "srun") -> list[str]:
    """The start of a step of one task on ``host`` in the job (its name: the task's, by which
    the stand-in finds the step to stop)."""
    return [srun, f"--jobid={job_id}", f"--job-name={name}",
            "--nodes=1", "--ntasks=1", f"--nodelist={host}", "--overlap", "--unbuffered",
            "--quiet"]


def _place(plan: RunPlan, job_id: str, where: SlurmHost) -> RunPlan:
    """The plan in granted job ``job_id``: each task's host, its port (picked on its node when
    the config names none) and its srun step, started by a stand-in."""
    nodes = where.run(["squeue", "--noheader", f"--jobs={job_id}", "--format=%N"]).stdout.strip()
    hosts = where.run(["scontrol", "show", "hostnames", nodes]).stdout.split()
    if not hosts:
        raise _problem(plan, "slurm", f"Slurm gave job {job_id} no nodes ({nodes!r})")
    per_host = math.ceil(len(plan.tasks) / len(hosts))
    host_of = {t.key: hosts[i // per_host] for i, t in enumerate(plan.tasks)}
    # The config's ports stay; the others are picked on the task's node.
    named = {t.key: t.port for t, _ in expand_tasks(plan.config)}
    serves = {t.key for t in plan.tasks if plan.cluster and t.role != "evaluator"}
    picked = _pick_ports(plan, job_id, where,
                         {k: host_of[k] for k in serves if named[k] is None})
    # The thread budget shares this machine's cores among its tasks: the nodes' cores are
    # Slurm's to share. TF sizes its pools for the node it runs on.
    defaults = {k: v for k, v in plan.defaults.items() if k not in THREAD_DEFAULTS}
    plan.release_ports()  # the tasks serve on the job's nodes
    placed = plan.on_hosts(
        {t.key: (host_of[t.key], picked.get(t.key, named[t.key]) if t.key in serves else None)
         for t in plan.tasks},
        job=job_id, defaults=defaults)
    cluster = where.place_run(plan)  # through a login node: the run's files copied there
    return placed.placed(_placements(placed, job_id, where.srun(), cluster,
                                     options_of(plan).gpus_per_task))


def _placements(placed: RunPlan, job_id: str, srun: str, cluster: ClusterPlace | None,
                gpus: int | None) -> dict[str, InSlurmJob]:
    """Each task as a step on its host: its stand-in, then its srun step (asking for ``gpus``
    GPUs, but for a ps), with the run's files in ``cluster`` (None: this machine's)."""
    placements = {}
    for task in placed.tasks:
        step = [*stand_in_head("_slurm-task"), *task_step(job_id, task.host, task.name, srun)]
        if gpus and task.role != "ps":
            step.append(f"--gpus-per-task={gpus}")
        placements[task.key] = InSlurmJob(tuple(step), cluster)
    return placements


def _pick_ports(plan: RunPlan, job_id: str, where: SlurmHost,
                host_of: dict[str, str]) -> dict[str, int]:
    """A free port for each task of ``host_of`` (key: host), picked by a short step there."""
    wanted: dict[str, list[str]] = {}
    for key, host in host_of.items():
        wanted.setdefault(host, []).append(key)
    picked: dict[str, int] = {}
    srun = where.srun()
    for host, keys in wanted.items():
        step = task_step(job_id, host, "tensordeck-ports", srun)
        result = where.run([*step, where.python(plan), "-c", PICK_PORTS, str(len(keys))])
        ports = result.stdout.split()
        if result.returncode != 0 or len(ports) != len(keys):
            raise _problem(plan, "slurm", f"cannot pick ports on {host}: {_said(result)}")
        picked.update(zip(keys, map(int, ports), strict=True))
    return picked
