"""Which TensorFlow environment works on this machine, and the commands that make it.

Pure: :func:`make_plan` reads :class:`MachineFacts` (gathered by :func:`gather_facts`) and
the compatibility tables (``resources/kb``), and runs nothing.

- native Windows with an NVIDIA GPU: TF 2.10, the last release with native GPU support, with
  CUDA 11.2 / cuDNN 8.1 in a conda env when conda is installed (TF's documented recipe); else
  in a venv with NVIDIA's CUDA 11 pip wheels (their ``bin`` folders go on the tasks' PATH, as a
  conda env's do); without conda or a Python 3.7-3.10, the WSL2 route: built inside the
  default WSL 2 distribution (:func:`make_wsl_plan`), else as steps to follow;
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
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath, PurePosixPath

from core.doctor import kb
from core.doctor.kb import Version, minor_of
from core.envcreate.wsl_facts import InWsl, WslFacts
from core.gpu.capability import Capability, build_minimum, build_runs_on, capability_text
from core.gpu.info import GpuInfo
from core.messages import tr

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
    #: The WSL 2 distribution to build in (None: not read; Windows reads it when it has no
    #: native GPU route, ``env create --wsl`` always).
    wsl: WslFacts | None = None


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

    target: PurePath  # a Linux path inside ``wsl``'s distribution when that is set
    kind: str  # venv | conda
    variant: str  # gpu | cpu
    tf: str  # the release, "2.21"
    why: str
    steps: tuple[Step, ...]
    download_mb: int
    #: The new env's python (what gets probed and registered).
    python: PurePath
    notes: tuple[str, ...] = ()
    buildable: bool = True
    manual: tuple[str, ...] = field(default_factory=tuple)  # steps for the user, when not
    #: The language its texts are in (core.messages; the command line's is English).
    language: str = "en"
    #: The WSL 2 distribution it is built in, through wsl.exe (None: this machine).
    wsl: InWsl | None = None

    def describe(self) -> str:
        """The plan as a person reads it before saying yes (the CLI and the window)."""
        from core.envcreate.target import interrupted

        lang = self.language
        where = self.wsl.spec(self.target) if self.wsl else self.target
        lines = [self.why, tr("env.where", lang, target=where, kind=self.kind)]
        if self.buildable and (self.wsl.left_over if self.wsl else interrupted(Path(where))):
            lines.append(tr("env.first", lang, target=where))
        if self.buildable:
            lines.append(tr("env.download", lang, mb=f"{self.download_mb:,}"))
            lines += [tr("env.commands", lang), *(f"  {self.shown(step)}" for step in self.steps)]
        else:
            lines += [tr("env.manual", lang), *(f"  {m}" for m in self.manual)]
        lines += [tr("env.note", lang, note=note) for note in self.notes]
        return "\n".join(lines)

    def shown(self, step: Step) -> str:
        """``step`` as the terminal it runs in takes it (inside WSL: Linux's)."""
        return step.shown("linux" if self.wsl else sys.platform)

    def interpreter(self) -> str:
        """The new environment's interpreter as a job names it: a path of this machine, or
        ``wsl://DISTRO/path``."""
        return self.wsl.spec(self.python) if self.wsl else str(self.python)


def env_python(prefix: PurePath, kind: str, windows: bool) -> PurePath:
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


def _check_gpus(facts: MachineFacts, tf: Version, lang: str) -> tuple[str | None, str | None]:
    """(Why release ``tf`` can use none of the GPUs, or None; a note for its plan, or None),
    in language ``lang``."""
    label = _label(tf)
    archs = kb.gpu_archs(tf, facts.platform)
    if archs is None:
        return None, tr("env.archs_unknown", lang, tf=label)
    missing: list[tuple[GpuInfo, Capability]] = [
        (g, cap) for g in facts.gpus
        if (cap := g.compute_capability) and not build_runs_on(archs, cap)]
    if not missing:
        return None, None
    minimum = build_minimum(archs)
    gpus = tr("env.list_separator", lang).join(
        tr("env.gpu_capability", lang, gpu=g.name or f"GPU {g.index}", cc=capability_text(cap))
        for g, cap in missing)
    text = (tr("env.no_code_from", lang, tf=label, gpus=gpus, minimum=capability_text(minimum))
            if minimum else tr("env.no_code", lang, tf=label, gpus=gpus))
    if len(missing) == len(facts.gpus):
        return text, None
    return None, tr("env.unused_one" if len(missing) == 1 else "env.unused_many", lang,
                    why=text)


def _label(version: Version) -> str:
    return ".".join(map(str, minor_of(version)))


def _pip(python: str | PurePath, *args: str) -> tuple[str, ...]:
    return (str(python), "-m", "pip", "install", "--disable-pip-version-check", *args)


def make_plan(facts: MachineFacts, target: PurePath | None = None, *, cpu: bool = False,
              language: str = "en") -> Plan:
    """The environment that will train on this machine's GPU (the CPU build when there is no
    usable GPU, or ``cpu``), made in ``target`` (default: a new folder in TensorDeck's data
    folder), its texts in ``language`` (the window's). Raises ValueError when no Python found
    can run any release."""
    windows = facts.platform == "windows"
    if facts.gpus and not cpu:
        if windows:
            return _windows_gpu(facts, target, language)
        if facts.platform in ("linux", "wsl"):
            plan = _linux_gpu(facts, target, language)
            if plan:
                return plan
    return _cpu(facts, target, cpu, language)


def _venv_steps(base: str, target: PurePath, windows: bool, packages: tuple[str, ...],
                text: str, lang: str) -> tuple[Step, ...]:
    python = env_python(target, "venv", windows)
    return (Step(tr("env.step.venv", lang), (base, "-m", "venv", str(target))),
            Step(text, _pip(python, *packages)))


def _cpu(facts: MachineFacts, target: PurePath | None, asked: bool, lang: str,
         lacks: str | None = None) -> Plan:
    """The CPU build; ``lacks``: why the GPU releases cannot use this machine's GPUs."""
    os_name = "windows" if facts.platform == "windows" else "linux"
    found = _newest(_rows(os_name, "cpu"), facts.pythons)
    if not found:
        raise ValueError(_no_python_message(facts, lang))
    row, base = found
    tf = _label(row.tf_version)
    target = target or default_target(f"tf{tf}-cpu")
    package = "tensorflow" if facts.platform == "macos" else "tensorflow-cpu"
    if asked:
        why = tr("env.why.cpu_asked", lang, tf=tf)
    elif lacks:
        why = tr("env.why.cpu_no_code", lang, tf=tf, lacks=lacks)
    elif facts.gpus and facts.platform in ("linux", "wsl"):
        driver = _label(facts.driver_cuda) if facts.driver_cuda else tr("env.unknown", lang)
        why = tr("env.why.cpu_old_driver", lang, tf=tf, driver=driver)
    else:
        why = tr("env.why.cpu_no_gpu", lang, tf=tf)
    windows = facts.platform == "windows"
    return Plan(target, "venv", "cpu", tf, why,
                _venv_steps(base, target, windows, (f"{package}=={tf}.*",),
                            tr("env.step.package", lang, package=package, tf=tf), lang),
                DOWNLOAD_MB["tensorflow-cpu"], env_python(target, "venv", windows), language=lang)


def _linux_gpu(facts: MachineFacts, target: PurePath | None, lang: str) -> Plan | None:
    rows = [r for r in _rows("linux", "gpu") if _driver_runs(facts.driver_cuda, r.cuda)
            and r.tf_version >= (2, 14)]  # [and-cuda] exists since 2.14
    blocked: str | None = None  # why the newest release cannot use the GPUs
    for row in sorted(rows, key=lambda r: r.tf_version, reverse=True):
        found = _newest([row], facts.pythons)
        if not found:
            continue
        lacks, note = _check_gpus(facts, row.tf_version, lang)
        if lacks or (blocked and kb.gpu_archs(row.tf_version, facts.platform) is None):
            blocked = blocked or lacks  # older: only a release known to have the code
            continue
        base = found[1]
        tf = _label(row.tf_version)
        target = target or default_target(f"tf{tf}-gpu")
        driver = _label(facts.driver_cuda) if facts.driver_cuda else "?"
        why = (tr("env.why.linux_gpu_older", lang, tf=tf, cuda=row.cuda, cudnn=row.cudnn,
                  blocked=blocked) if blocked else
               tr("env.why.linux_gpu", lang, tf=tf, cuda=row.cuda, cudnn=row.cudnn,
                  driver=driver))
        return Plan(target, "venv", "gpu", tf, why,
                    _venv_steps(base, target, False, (f"tensorflow[and-cuda]=={tf}.*",),
                                tr("env.step.tf_cuda", lang, tf=tf), lang),
                    DOWNLOAD_MB["tensorflow-and-cuda"], env_python(target, "venv", False),
                    notes=(note,) if note else (), language=lang)
    if blocked:
        return _cpu(facts, target, False, lang, blocked)
    return None


def _windows_gpu(facts: MachineFacts, target: PurePath | None, lang: str) -> Plan:
    lacks, note = _check_gpus(facts, WINDOWS_GPU_TF, lang)
    if lacks:
        return _cpu(facts, target, False, lang, lacks)
    notes = (note,) if note else ()
    row = _windows_gpu_row()
    if not native_gpu_route(facts) and target is None and facts.wsl and not facts.wsl.problem:
        return make_wsl_plan(facts, language=lang)
    tf = _label(WINDOWS_GPU_TF)
    target = target or default_target(f"tf{tf}-gpu")
    pins = (f"tensorflow=={tf}.*", "numpy<2")
    if facts.conda:
        python = env_python(target, "conda", True)
        steps: tuple[Step, ...] = (
            Step(tr("env.step.conda", lang),
                 (facts.conda, "create", "-y", "-p", str(target), "python=3.10")),
            Step(tr("env.step.conda_cuda", lang, cuda=row.cuda, cudnn=row.cudnn),
                 (facts.conda, "install", "-y", "-p", str(target), "-c", "conda-forge",
                  f"cudatoolkit={row.cuda}", "cudnn=8.1.0")),
            Step(tr("env.step.tf", lang, tf=tf), _pip(python, *pins)),
        )
        return Plan(target, "conda", "gpu", tf,
                    tr("env.why.windows_conda", lang, tf=tf, cuda=row.cuda, cudnn=row.cudnn),
                    steps, DOWNLOAD_MB["conda-cuda11.2"] + DOWNLOAD_MB["tensorflow-2.10-windows"],
                    python, notes=notes, language=lang)
    fits = sorted((p for p in facts.pythons if row.supports_python(p[1])), key=lambda p: p[1])
    if not fits:
        return Plan(target, "venv", "gpu", "current", tr("env.why.wsl", lang, tf=tf), (), 0,
                    target, buildable=False, language=lang, manual=(
                        *_wsl_steps_for_you(facts.wsl, lang), tr("env.manual.native", lang, tf=tf)))
    python = env_python(target, "venv", True)
    steps = (*_venv_steps(fits[-1][0], target, True, pins, tr("env.step.tf", lang, tf=tf), lang),
             Step(tr("env.step.cuda11_wheels", lang), _pip(python, *CUDA11_WHEELS)))
    return Plan(target, "venv", "gpu", tf,
                tr("env.why.windows_venv", lang, tf=tf, cuda=row.cuda, cudnn=row.cudnn),
                steps, DOWNLOAD_MB["tensorflow-2.10-windows"] + DOWNLOAD_MB["cuda11-wheels"],
                python, notes=(*notes, tr("env.note.cuda11_newer", lang),
                               tr("env.note.cuda11_path", lang)), language=lang)


def _windows_gpu_row() -> kb.BuildConfig:
    row = kb.find_build(WINDOWS_GPU_TF, "windows", "gpu")
    assert row is not None, "resources/kb lists WINDOWS_GPU_TF: shipped data, not input"
    return row


def native_gpu_route(facts: MachineFacts) -> bool:
    """Whether TensorFlow's last native Windows GPU release can be made here: with conda, or
    with a Python it runs (3.7-3.10)."""
    row = _windows_gpu_row()
    return bool(facts.conda) or any(row.supports_python(v) for _, v in facts.pythons)


def _wsl_steps_for_you(wsl: WslFacts | None, lang: str) -> tuple[str, ...]:
    """The WSL route left to the user: install WSL or a distribution (an administrator, a
    restart); or fix the distribution that cannot be built in; or (a folder of this machine
    was asked for) the command that builds inside WSL."""
    if wsl is None or wsl.installs:
        return tr("env.manual.wsl_install", lang), tr("env.manual.wsl_venv", lang)
    if problem := wsl.problem_in(lang):
        return (problem,)
    return (tr("env.manual.wsl_build", lang),)


def make_wsl_plan(facts: MachineFacts, *, cpu: bool = False, language: str = "en") -> Plan:
    """The environment built inside ``facts.wsl``'s distribution: what a Linux machine with
    these GPUs gets (WSL 2 reaches them through the Windows driver), for the distribution's
    python3, in the folder asked for, else ``~/tf-<release>`` (``-cpu`` for the CPU build).
    Raises ValueError, said in ``language``, when the distribution cannot be built in or its
    python3 runs no release."""
    wsl = facts.wsl
    problem = wsl.problem_in(language) if wsl else None
    if wsl is None or wsl.target is None or wsl.python is None or problem:
        raise ValueError(problem or tr("env.wsl.not_read", language))
    name = wsl.target.distro.name
    linux = MachineFacts("wsl", facts.gpus, facts.driver_cuda, (wsl.python,))
    try:  # a first plan chooses the release, which names the folder
        draft = make_plan(linux, PurePosixPath(wsl.home), cpu=cpu, language=language)
    except ValueError:
        raise ValueError(tr("env.wsl.python_too_old", language, version=_label(wsl.python[1]),
                            distro=name)) from None
    folder = wsl.folder(f"tf-{draft.tf}" + ("-cpu" if draft.variant == "cpu" else ""), language)
    plan = make_plan(linux, folder.path, cpu=cpu, language=language)
    notes = [tr("env.wsl.registered_as", language, python=folder.where.spec(plan.python),
                distro=name)]
    if plan.variant == "gpu":
        if facts.platform == "windows":
            notes.append(tr("env.wsl.windows_gpu", language))
        notes.append(tr("env.wsl.driver", language))
    return replace(plan, wsl=folder.where, notes=(*plan.notes, *notes),
                   why=tr("env.wsl.why", language, distro=name, why=plan.why))


def _no_python_message(facts: MachineFacts, lang: str) -> str:
    found = ", ".join(f"{p} ({_label(v)})" for p, v in facts.pythons) or tr("env.none", lang)
    return tr("env.no_python", lang, found=found)


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
    raise ValueError(tr("env.too_many", "en", folder=base, name=name))


def _base_pythons(pythons: list[str] | None) -> tuple[tuple[str, Version], ...]:
    """The Pythons a venv can be based on (given, else discovered), with their versions."""
    from core.interpreters.discover import discover_interpreters
    from core.interpreters.probe import cached_probe
    from core.wsl.paths import is_wsl_spec

    paths = pythons if pythons is not None else [  # a venv base runs here, not inside WSL
        i.path for i in discover_interpreters(use_conda=False) if not is_wsl_spec(i.path)]
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
    return tuple(found.items())


def gather_facts(pythons: list[str] | None = None, nvml: object = None, *,
                 look_in_wsl: bool = True) -> MachineFacts:
    """This machine's facts: the GPUs (NVML), the Pythons (given, else discovered), conda;
    on Windows with GPUs and no native GPU route (and ``look_in_wsl``), the default WSL 2
    distribution's."""
    from core.doctor.machine import this_platform
    from core.gpu import read_gpus
    from core.gpu.info import GpuState
    from core.interpreters.discover import conda_executable

    report = read_gpus(nvml, processes=False)
    usable = tuple(g for g in report.gpus if not g.error) if report.state == GpuState.OK else ()
    facts = MachineFacts(this_platform(), usable, kb.parse_version(report.cuda_driver_version),
                         _base_pythons(pythons), conda_executable(os.environ))
    if look_in_wsl and facts.platform == "windows" and usable and not native_gpu_route(facts):
        from core.envcreate.wsl_facts import read_wsl

        return replace(facts, wsl=read_wsl(None))
    return facts
