"""Which TensorFlow environment works on this machine, and the commands that make it.

Pure: :func:`make_plan` reads :class:`MachineFacts` (gathered by :func:`gather_facts`) and
the compatibility tables (``resources/kb``), and runs nothing.

- native Windows with an NVIDIA GPU: TF 2.10, the last release with native GPU support, with
  CUDA 11.2 / cuDNN 8.1 in a conda env when conda is installed (TF's documented recipe); else
  in a venv with NVIDIA's CUDA 11 pip wheels (their ``bin`` folders go on the tasks' PATH, as a
  conda env's do); without conda or a Python 3.7-3.10, the WSL2 route, as steps to follow;
- Linux / WSL2 with an NVIDIA GPU: a venv with ``tensorflow[and-cuda]`` of the newest release
  whose CUDA the driver runs;
- no usable NVIDIA GPU (or ``cpu=True``): a venv with the CPU build.

A release is proposed for GPUs only when its build has code for them (the architectures read
from its real wheel, ``resources/kb/tf_gpu_archs.csv``): else an older recorded release that
has, else the CPU build. A release whose architectures were not read is not blocked: its plan
says that they are unknown.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from core.doctor import kb
from core.doctor.kb import Version, minor_of
from core.gpu.capability import Capability, build_minimum, build_runs_on, capability_text
from core.gpu.info import GpuInfo

WINDOWS_GPU_TF = (2, 10)
#: NVIDIA's CUDA 11 libraries as win_amd64 pip wheels, for TF 2.10 (it loads cudart64_110,
#: cublas64_11, cufft64_10, curand64_10, cusolver64_11, cusparse64_11 and cudnn64_8). Newer
#: than the CUDA 11.2 / cuDNN 8.1 TF 2.10 was built with: CUDA 11 minor-version compatibility
#: and cuDNN 8's stable ABI say they load; a GPU run confirms it.
CUDA11_WHEELS = ("nvidia-cuda-runtime-cu11", "nvidia-cublas-cu11", "nvidia-cufft-cu11",
                 "nvidia-curand-cu11", "nvidia-cusolver-cu11", "nvidia-cusparse-cu11",
                 "nvidia-cudnn-cu11==8.9.*")
#: Approximate download sizes in MB (the wheels / conda packages as their indexes list them,
#: rounded up, dependencies included). Shown as "about"; pip and conda print the real ones.
DOWNLOAD_MB = {
    "tensorflow-cpu": 340,     # tensorflow_cpu 2.21.0 manylinux: 274 MB, + keras, numpy, h5py ...
    "tensorflow-2.10-windows": 500,  # tensorflow 2.10.0 win_amd64: 456 MB
    "tensorflow-and-cuda": 3300,  # tensorflow ~620 MB + the nvidia-*-cu12 wheels
    "cuda11-wheels": 1700,     # cudnn-cu11 8.9 ~720 MB, cublas ~420, the rest ~550
    "conda-cuda11.2": 1300,    # cudatoolkit 11.2 ~650 MB, cudnn 8.1 ~600 MB, python
}


@dataclass(frozen=True)
class MachineFacts:
    """What decides the plan. ``platform``: windows | linux | wsl | macos."""

    platform: str
    gpus: tuple[GpuInfo, ...] = ()  # the usable NVIDIA GPUs (the driver answers)
    driver_cuda: Version | None = None  # the newest CUDA the driver runs ("CUDA Version")
    pythons: tuple[tuple[str, Version], ...] = ()  # base interpreters found, with versions
    conda: str | None = None


@dataclass(frozen=True)
class Step:
    """One command of a plan, run as an argument list (never through a shell)."""

    text: str
    argv: tuple[str, ...]

    def shown(self, platform: str = sys.platform) -> str:
        """The command as this platform's terminal would take it."""
        if platform == "win32":
            return subprocess.list2cmdline(self.argv)
        return shlex.join(self.argv)


@dataclass(frozen=True)
class Plan:
    """An environment to make: where, what, why, and how. ``buildable`` is False when its steps
    are for the user (WSL2 needs an administrator and a restart)."""

    target: Path
    kind: str  # venv | conda
    variant: str  # gpu | cpu
    tf: str  # the release, "2.21"
    why: str
    steps: tuple[Step, ...]
    download_mb: int
    #: The new env's python (what gets probed and registered).
    python: Path
    notes: tuple[str, ...] = ()
    buildable: bool = True
    manual: tuple[str, ...] = field(default_factory=tuple)  # steps for the user, when not


    def describe(self) -> str:
        """The plan as a person reads it before saying yes (the CLI and the window)."""
        from core.envcreate.target import interrupted

        lines = [self.why, f"Where: {self.target} ({self.kind})"]
        if self.buildable and interrupted(self.target):
            lines.append(f"First: removes what an interrupted build left in {self.target}")
        if self.buildable:
            lines.append(f"Download: about {self.download_mb:,} MB")
            lines += ["Commands:", *(f"  {step.shown()}" for step in self.steps)]
        else:
            lines += ["Steps for you:", *(f"  {m}" for m in self.manual)]
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(lines)


def env_python(prefix: Path, kind: str, windows: bool) -> Path:
    if windows:
        return prefix / ("python.exe" if kind == "conda" else "Scripts/python.exe")
    return prefix / "bin" / "python"


def _newest(rows: list[kb.BuildConfig], pythons: tuple[tuple[str, Version], ...]
            ) -> tuple[kb.BuildConfig, str] | None:
    """The newest release of ``rows`` that one of ``pythons`` runs, with the newest such
    Python."""
    for row in sorted(rows, key=lambda r: r.tf_version, reverse=True):
        fits = sorted((p for p in pythons if row.supports_python(p[1])), key=lambda p: p[1])
        if fits:
            return row, fits[-1][0]
    return None


def _rows(os_name: str, variant: str) -> list[kb.BuildConfig]:
    """Releases to offer: listed ones from 2.10 on (older wheels are not on PyPI for the
    Pythons still in use)."""
    return [r for r in kb.build_configs() if r.os == os_name and r.variant == variant
            and r.status == "listed" and r.tf_version >= WINDOWS_GPU_TF]


def _driver_runs(driver: Version | None, cuda: str | None) -> bool:
    """A driver runs the CUDA runtimes up to its own version, and (CUDA 11+ minor-version
    compatibility) any of its own major version."""
    need = kb.parse_version(cuda)
    if not driver or not need:
        return False
    return minor_of(driver) >= minor_of(need) or (need[0] >= 11 and driver[0] == need[0])


def _check_gpus(facts: MachineFacts, tf: Version) -> tuple[str | None, str | None]:
    """(Why release ``tf`` can use none of the GPUs, or None; a note for its plan, or None)."""
    label = _label(tf)
    archs = kb.gpu_archs(tf, facts.platform)
    if archs is None:
        return None, (f"Which GPUs TensorFlow {label}'s build has code for is unknown (TensorDeck "
                      "has not read that release's build_info): your GPUs' compute capability "
                      "was not checked against it.")
    missing: list[tuple[GpuInfo, Capability]] = [
        (g, cap) for g in facts.gpus
        if (cap := g.compute_capability) and not build_runs_on(archs, cap)]
    if not missing:
        return None, None
    minimum = build_minimum(archs)
    text = (f"TensorFlow {label}'s GPU build has no code for the "
            + ", ".join(f"{g.name or f'GPU {g.index}'} (compute capability "
                        f"{capability_text(cap)})" for g, cap in missing)
            + (f"; it runs on compute capability {capability_text(minimum)} and up"
               if minimum else ""))
    if len(missing) == len(facts.gpus):
        return text, None
    return None, text + ": TensorFlow will not use " + ("it" if len(missing) == 1 else "them")


def _label(version: Version) -> str:
    return ".".join(map(str, minor_of(version)))


def _pip(python: str | Path, *args: str) -> tuple[str, ...]:
    return (str(python), "-m", "pip", "install", "--disable-pip-version-check", *args)


def make_plan(facts: MachineFacts, target: Path | None = None, *, cpu: bool = False) -> Plan:
    """The environment that will train on this machine's GPU (the CPU build when there is no
    usable GPU, or ``cpu``), made in ``target`` (default: a new folder in TensorDeck's data
    folder). Raises ValueError when no Python found can run any release."""
    windows = facts.platform == "windows"
    if facts.gpus and not cpu:
        if windows:
            return _windows_gpu(facts, target)
        if facts.platform in ("linux", "wsl"):
            plan = _linux_gpu(facts, target)
            if plan:
                return plan
    return _cpu(facts, target, cpu)


def _venv_steps(base: str, target: Path, windows: bool, packages: tuple[str, ...],
                text: str) -> tuple[Step, ...]:
    python = env_python(target, "venv", windows)
    return (Step("Create the virtual environment", (base, "-m", "venv", str(target))),
            Step(text, _pip(python, *packages)))


def _cpu(facts: MachineFacts, target: Path | None, asked: bool,
         lacks: str | None = None) -> Plan:
    """The CPU build; ``lacks``: why the GPU releases cannot use this machine's GPUs."""
    os_name = "windows" if facts.platform == "windows" else "linux"
    found = _newest(_rows(os_name, "cpu"), facts.pythons)
    if not found:
        raise ValueError(_no_python_message(facts, None))
    row, base = found
    tf = _label(row.tf_version)
    target = target or default_target(f"tf{tf}-cpu")
    package = "tensorflow" if facts.platform == "macos" else "tensorflow-cpu"
    if asked:
        why = "the CPU build, as asked"
    elif lacks:
        why = (f"the CPU build: {lacks}, and no release TensorDeck knows has code for it. "
               "TensorFlow trains on the CPU")
    elif facts.gpus and facts.platform in ("linux", "wsl"):
        driver = _label(facts.driver_cuda) if facts.driver_cuda else "unknown"
        why = (f"the CPU build: the NVIDIA driver (CUDA {driver}) is older than every "
               "TensorFlow GPU release with pip CUDA needs (CUDA 11 or newer); update it for GPU "
               "training")
    else:
        why = "no usable NVIDIA GPU here: the CPU build (TensorFlow trains on the CPU)"
    windows = facts.platform == "windows"
    return Plan(target, "venv", "cpu", tf, f"TensorFlow {tf}, {why}",
                _venv_steps(base, target, windows, (f"{package}=={tf}.*",),
                            f"Install {package} {tf}"),
                DOWNLOAD_MB["tensorflow-cpu"], env_python(target, "venv", windows))


def _linux_gpu(facts: MachineFacts, target: Path | None) -> Plan | None:
    rows = [r for r in _rows("linux", "gpu") if _driver_runs(facts.driver_cuda, r.cuda)
            and r.tf_version >= (2, 14)]  # [and-cuda] exists since 2.14
    blocked: str | None = None  # why the newest release cannot use the GPUs
    for row in sorted(rows, key=lambda r: r.tf_version, reverse=True):
        found = _newest([row], facts.pythons)
        if not found:
            continue
        lacks, note = _check_gpus(facts, row.tf_version)
        if lacks or (blocked and kb.gpu_archs(row.tf_version, facts.platform) is None):
            blocked = blocked or lacks  # older: only a release known to have the code
            continue
        base = found[1]
        tf = _label(row.tf_version)
        target = target or default_target(f"tf{tf}-gpu")
        driver = _label(facts.driver_cuda) if facts.driver_cuda else "?"
        why = (f"TensorFlow {tf} (CUDA {row.cuda}, cuDNN {row.cudnn}): " + (
            f"{blocked}; this release's build has code for it" if blocked else
            f"the newest release your driver (CUDA {driver}) runs") +
            "; pip brings the CUDA libraries")
        return Plan(target, "venv", "gpu", tf, why,
                    _venv_steps(base, target, False, (f"tensorflow[and-cuda]=={tf}.*",),
                                f"Install TensorFlow {tf} with its CUDA libraries"),
                    DOWNLOAD_MB["tensorflow-and-cuda"], env_python(target, "venv", False),
                    notes=(note,) if note else ())
    if blocked:
        return _cpu(facts, target, False, blocked)
    return None


def _windows_gpu(facts: MachineFacts, target: Path | None) -> Plan:
    lacks, note = _check_gpus(facts, WINDOWS_GPU_TF)
    if lacks:
        return _cpu(facts, target, False, lacks)
    notes = (note,) if note else ()
    row = kb.find_build(WINDOWS_GPU_TF, "windows", "gpu")
    assert row is not None, "resources/kb lists WINDOWS_GPU_TF: shipped data, not input"
    tf = _label(WINDOWS_GPU_TF)
    target = target or default_target(f"tf{tf}-gpu")
    pins = (f"tensorflow=={tf}.*", "numpy<2")
    why = (f"TensorFlow {tf}: the last release with GPU support on native Windows (CUDA "
           f"{row.cuda}, cuDNN {row.cudnn})")
    if facts.conda:
        python = env_python(target, "conda", True)
        steps: tuple[Step, ...] = (
            Step("Create the conda env with Python 3.10",
                 (facts.conda, "create", "-y", "-p", str(target), "python=3.10")),
            Step(f"Install CUDA {row.cuda} and cuDNN {row.cudnn} into it (conda-forge)",
                 (facts.conda, "install", "-y", "-p", str(target), "-c", "conda-forge",
                  f"cudatoolkit={row.cuda}", "cudnn=8.1.0")),
            Step(f"Install TensorFlow {tf}", _pip(python, *pins)),
        )
        return Plan(target, "conda", "gpu", tf, why + ", in a conda env", steps,
                    DOWNLOAD_MB["conda-cuda11.2"] + DOWNLOAD_MB["tensorflow-2.10-windows"],
                    python, notes=notes)
    fits = sorted((p for p in facts.pythons if row.supports_python(p[1])), key=lambda p: p[1])
    if not fits:
        return Plan(target, "venv", "gpu", "current", "No conda and no Python 3.7-3.10 here "
                    f"for TensorFlow {tf}: the WSL2 route (the current release)", (), 0,
                    target, buildable=False, manual=(
                        "In PowerShell as administrator: wsl --install (then restart)",
                        "In WSL (Ubuntu): python3 -m venv ~/tf && ~/tf/bin/pip install "
                        "\"tensorflow[and-cuda]\"",
                        f"Or install Python 3.10 (python.org) or Miniconda and run this again "
                        f"for native TensorFlow {tf}"))
    python = env_python(target, "venv", True)
    steps = (*_venv_steps(fits[-1][0], target, True, pins, f"Install TensorFlow {tf}"),
             Step("Install the CUDA 11 and cuDNN 8.9 libraries as pip wheels",
                  _pip(python, *CUDA11_WHEELS)))
    return Plan(target, "venv", "gpu", tf, why + ", in a venv with NVIDIA's CUDA 11 pip wheels",
                steps, DOWNLOAD_MB["tensorflow-2.10-windows"] + DOWNLOAD_MB["cuda11-wheels"],
                python, notes=(*notes,
                    "These CUDA 11.8 / cuDNN 8.9 wheels are newer than the CUDA 11.2 / cuDNN 8.1 "
                    "TensorFlow 2.10 was built with: they should load (CUDA 11 minor-version "
                    "compatibility, cuDNN 8's stable interface), but this pairing is confirmed "
                    "only once a GPU run works.",
                    "TensorDeck puts the wheels' bin folders (site-packages\\nvidia\\*\\bin) on "
                    "the PATH of every task it starts from this env, as it does for conda envs."))


def _no_python_message(facts: MachineFacts, release: str | None) -> str:
    found = ", ".join(f"{p} ({_label(v)})" for p, v in facts.pythons) or "none"
    return (f"no Python found here runs a TensorFlow release{release or ''} (found: {found}). "
            "Install Python 3.10-3.12 from python.org (or pass --python PATH), then try again")


def default_target(name: str) -> Path:
    """A new folder for an environment in the per-user data folder: ``envs/NAME``, or
    ``NAME-2`` ... when that one is taken (one an interrupted build left is reused: the build
    cleans it first)."""
    from core.envcreate.target import interrupted
    from core.paths import user_data_dir

    base = user_data_dir() / "envs"
    for n in range(1, 1000):
        path = base / (name if n == 1 else f"{name}-{n}")
        if not os.path.lexists(path) or interrupted(path):
            return path
    raise ValueError(f"{base} holds 999 environments named {name}: remove some")


def gather_facts(pythons: list[str] | None = None, nvml: object = None) -> MachineFacts:
    """This machine's facts: the GPUs (NVML), the Pythons (given, else discovered), conda."""
    from core.doctor.machine import this_platform
    from core.gpu import read_gpus
    from core.gpu.info import GpuState
    from core.interpreters.discover import conda_executable, discover_interpreters
    from core.interpreters.probe import cached_probe

    report = read_gpus(nvml, processes=False)
    usable = tuple(g for g in report.gpus if not g.error) if report.state == GpuState.OK else ()
    paths = pythons if pythons is not None else [
        i.path for i in discover_interpreters(use_conda=False)]
    found: dict[str, Version] = {}
    for path in paths:
        probe = cached_probe(os.path.abspath(path), import_tf=False)
        version = kb.parse_version(probe.python_version)
        if version and probe.bits != 32:
            # The binary the child ran as, not a launcher script (a pyenv shim follows
            # whichever version is selected at the time).
            exe = probe.executable if probe.executable and os.path.isfile(
                probe.executable) else os.path.abspath(path)
            found.setdefault(exe, version)
    return MachineFacts(this_platform(), usable, kb.parse_version(report.cuda_driver_version),
                        tuple(found.items()), conda_executable(os.environ))
