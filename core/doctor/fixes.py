"""The doctor's finding catalogue: for each stable id, its default severity and title, and the
steps (exact commands) that fix it on the user's platform and TensorFlow version.

explain (pasted outputs), machine (a probed interpreter), depwalk and prerun all build their
findings here, so one cause always reads the same and carries the same fix.

Commands hold values TensorDeck did not write: an interpreter's path (a folder may be named
``x$(id>PWN)``), a conda env name or a script read from a pasted log. Every such value is
quoted for the shell of its step (:func:`shell_word`), or the command is left out when that
shell cannot carry it; a step the window may run also lists its programs as argument lists
(``FixStep.argv``), which it runs without any shell.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from core.doctor import kb
from core.doctor.kb import Version, minor_of
from core.findings import Finding, FixStep, Severity, Text
from core.output import control_character
from core.shellwords import UnsafeValue, quote
from core.wsl.paths import is_wsl_spec, parse_wsl_spec
from core.wsl.refusals import WslPathError

VERIFY_GPU_CODE = "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"
VERIFY_GPU = f'python -c "{VERIFY_GPU_CODE}"'
VC_REDIST_URL = "https://aka.ms/vs/17/release/vc_redist.x64.exe"
DRIVER_URL = "https://www.nvidia.com/Download/index.aspx"


@dataclass
class FixContext:
    """What the fix text may use. Any field may be unknown."""

    platform: str | None = None  # windows | linux | wsl | macos
    tf_version: Version | None = None
    python: Version | None = None
    #: The interpreter as TensorDeck names it: a path, or ``wsl://DISTRO/path`` inside WSL.
    python_exe: str | None = None
    conda_env: str | None = None
    #: The Linux distribution family (:func:`core.doctor.context.linux_distro`): "ubuntu",
    #: "debian", "fedora", "rhel" (with its major version, "rhel9"), or None (unknown: the
    #: driver steps then list each family's commands).
    distro: str | None = None
    #: Facts a rule found (missing library, wanted CUDA, port, ...), shown in the steps.
    detail: dict = field(default_factory=dict)

    @property
    def exe(self) -> str:
        """The interpreter as the shell of its steps names it (inside WSL, its Linux path)."""
        return self.wsl_path or self.python_exe or "python"

    @property
    def named(self) -> str:
        """The interpreter as ``tensordeck doctor --python`` takes it."""
        return self.python_exe or "python"

    @property
    def wsl_path(self) -> str | None:
        """The Linux path of an interpreter inside WSL; None for any other."""
        if not self.python_exe or not is_wsl_spec(self.python_exe):
            return None
        try:
            return parse_wsl_spec(self.python_exe).path
        except WslPathError:
            return None

    @property
    def windows(self) -> bool:
        return self.platform == "windows"

    def gpu_build(self) -> kb.BuildConfig | None:
        """The official GPU build row for this TF (or the newest one when TF is unknown)."""
        return kb.find_build(self.tf_version, self.platform, "gpu") if self.tf_version else None


#: Each finding id and its default severity; its default title is the message "finding.<id>".
_CATALOG: dict[str, Severity] = {
    "no-nvidia-driver": "error",
    "driver-not-loaded": "error",
    "driver-too-old": "error",
    "tf-windows-gpu-unsupported": "error",
    "missing-cuda-runtime": "error",
    "missing-cudnn": "error",
    "cuda-version-mismatch": "error",
    "missing-msvc-runtime": "error",
    "cpu-no-avx": "error",
    "python-unsupported": "error",
    "mixed-tf-packages": "error",
    "native-runtime-load-failed": "error",
    "keras3-strategy-unsupported": "error",
    "nccl-unavailable": "error",
    "gpu-out-of-memory": "error",
    "host-out-of-memory": "error",
    "port-in-use": "error",
    "conda-env-not-activated": "error",
    "tf1-api-on-tf2": "error",
    "peer-unreachable": "error",
    "optional-library-missing": "info",
    "wsl-linux-driver": "error",
    "wsl-gpu-unavailable": "error",
    "gpu-arch-unsupported": "error",
    "cpu-only-build": "info",
    "probe-failed": "warning",
    "tf-not-installed": "info",
    "tf-shadowed": "error",
    "os-too-old": "error",
    "tf-too-old": "error",
    "module-not-installed": "error",
    "protos-not-compiled": "error",
    "api-removed": "error",
    "addon-ops-not-loaded": "error",
    "no-windows-build": "error",
    "script-not-parsed": "warning",
    "pip-install-failed": "error",
    "dependency-version-conflict": "error",
    "unrecognized-error": "warning",
    "no-error-found": "info",
}


def make_finding(fid: str, evidence: str | list[str], ctx: FixContext | None = None, *,
                 title: Text | None = None, severity: Severity | None = None) -> Finding:
    """A Finding of catalogue id ``fid`` with the fix for ``ctx``; its title ``title``, by
    default the message ``finding.<fid>``."""
    ctx = ctx or FixContext()
    if isinstance(evidence, list):
        evidence = "\n".join(dict.fromkeys(line[:400] for line in evidence))
    steps = _STEPS[fid](ctx) if fid in _STEPS else []
    if ctx.wsl_path:
        steps = [_where_in_wsl(ctx, step) for step in steps]
    title = title or Text.of(f"finding.{fid}")
    return Finding(fid, severity or _CATALOG[fid], title.en, evidence, tuple(steps),
                   message=title)


def finding_title(key: str, /, **params: object) -> Text:
    """The title message ``finding.<key>`` (``key``: a finding id, or ``<id>.<variant>``)."""
    return Text.of(f"finding.{key}", **params)


def is_known(fid: str) -> bool:
    return fid in _CATALOG


def finding_ids() -> tuple[str, ...]:
    """Every finding id the doctor can name."""
    return tuple(_CATALOG)


# --- quoting --------------------------------------------------------------------------------

_POSIX_PLAIN = re.compile(r"[A-Za-z0-9_./:@%+=,-]+", re.ASCII)
_POSIX_DOUBLE_QUOTED_SPECIAL = re.compile(r'[$`"\\!]', re.ASCII)  # ! : bash history expansion
_PORT = re.compile(r"\d{1,5}\Z", re.ASCII)
#: A Debian package name (Debian Policy 5.6.1): such a name is one shell word as it is.
DEB_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]{0,99}", re.ASCII)
_VERSION = re.compile(r"\d{1,4}(\.\d{1,4}){0,3}\Z", re.ASCII)


def shell_kind(shell: str, windows: bool) -> str:
    """The quoting rules of a step's ``shell``: "posix", "cmd" or "powershell"."""
    if shell == "powershell":
        return "powershell"
    if shell == "cmd" or (shell in ("conda", "any") and windows):
        return "cmd"
    return "posix"


def shell_word(value: str, kind: str) -> str:
    """``value`` as one word for ``kind``'s shell (:func:`core.shellwords.quote`); for sh, as is
    when nothing in it is special and in double quotes when only spaces and such are (a path
    with spaces reads as one). UnsafeValue when that shell cannot carry it (a control character
    anywhere; ``"``, ``%`` or ``!`` for cmd)."""
    if control_character(value):
        raise UnsafeValue(f"{value!r} holds a control character")
    if kind == "posix" and not _POSIX_DOUBLE_QUOTED_SPECIAL.search(value):
        return value if _POSIX_PLAIN.fullmatch(value) else f'"{value}"'
    return quote(value, kind)  # type: ignore[arg-type]


def _port_number(value: object) -> str | None:
    return str(value) if _PORT.match(str(value)) else None


def _version(value: object) -> str | None:
    """A version read from a log or the knowledge base, only if it is one (it goes into
    commands)."""
    return str(value) if value is not None and _VERSION.match(str(value)) else None


def _said(key: str, /, **params: object) -> Text:
    """The fix text message ``fix.<key>``."""
    return Text.of(f"fix.{key}", **params)


def _step(text: Text, command: str | None = None, shell: str = "any", *,
          argv: tuple[tuple[str, ...], ...] = (), admin: bool = False,
          reboot: bool = False) -> FixStep:
    """A step whose text is a catalogue message (its English in ``FixStep.text``)."""
    return FixStep(text.en, command, shell, argv, admin, reboot, message=text)


def _program(ctx: FixContext, text: Text, *programs: Sequence[str],
             shell: str = "any") -> FixStep:
    """A step that runs ``programs`` (argument lists) one after the other. The window runs the
    argument lists as they are; the command text quotes each word for ``shell``. A value no
    shell rule can carry leaves the step without a command."""
    kind = shell_kind(shell, ctx.windows)
    try:
        command = "\n".join(" ".join(shell_word(w, kind) for w in p) for p in programs)
    except UnsafeValue as exc:
        return _step(_said("command-left-out", text=text, why=str(exc)))
    return _step(text, command, shell, argv=tuple(tuple(p) for p in programs))


def _where_in_wsl(ctx: FixContext, step: FixStep) -> FixStep:
    """A step of an interpreter inside WSL that runs there (in a shell of this platform, or
    the interpreter itself) says so: it is typed in the distribution, not in PowerShell."""
    runs_inside = step.shell in ("bash", "conda") or (
        step.shell == "any" and any(program[:1] == (ctx.exe,) for program in step.argv))
    if not step.command or not runs_inside or step.message is None:
        return step
    distro = parse_wsl_spec(ctx.named).distro
    where = _said("in-wsl", distro=distro or _said("wsl-default-distro"), text=step.message)
    return replace(step, text=where.en, message=where,
                   shell="bash" if step.shell == "any" else step.shell)


def _pip(ctx: FixContext, *args: str) -> list[str]:
    """``pip`` of the training interpreter itself, so the fix lands in the right env."""
    return [ctx.exe, "-m", "pip", *args]


# --- steps per id ---------------------------------------------------------------------------

def _set_env(ctx: FixContext, name: str, value: str) -> FixStep:
    if ctx.windows:
        return _step(_said("set-env-console", name=name), f"set {name}={value}", "cmd")
    return _step(_said("set-env", name=name), f"export {name}={value}", "bash")


def _here(ctx: FixContext) -> str:
    return "cmd" if ctx.windows else "bash"


def _verify(ctx: FixContext) -> FixStep:
    return _program(ctx, _said("verify-gpu"),
                    [ctx.exe, "-c", VERIFY_GPU_CODE], shell=_here(ctx))


def _nvidia_smi(ctx: FixContext, text: Text, shell: str) -> FixStep:
    return _program(ctx, text, ["nvidia-smi"], shell=shell)


#: How each Linux family installs the NVIDIA driver (NVIDIA's and the distributions' own
#: guides): (name, commands). Every one needs root and takes effect after a reboot.
_LINUX_DRIVER_INSTALL: dict[str, tuple[Text, str]] = {
    "ubuntu": (_said("distro.ubuntu"), "sudo ubuntu-drivers install\nsudo reboot"),
    "debian": (_said("distro.debian"),
               "sudo apt update\nsudo apt install linux-headers-amd64 nvidia-driver "
               "firmware-misc-nonfree\nsudo reboot"),
    "fedora": (_said("distro.fedora"),
               "sudo dnf install https://mirrors.rpmfusion.org/nonfree/fedora/"
               "rpmfusion-nonfree-release-$(rpm -E %fedora).noarch.rpm\n"
               "sudo dnf install akmod-nvidia xorg-x11-drv-nvidia-cuda\nsudo reboot"),
    "rhel": (_said("distro.rhel"),
             "sudo dnf config-manager --add-repo https://developer.download.nvidia.com/compute/"
             "cuda/repos/rhel{major}/x86_64/cuda-rhel{major}.repo\n"
             "sudo dnf module install nvidia-driver:latest-dkms\nsudo reboot"),
}
#: Rebuilding the kernel module for the running kernel, per family.
_LINUX_DRIVER_REBUILD: dict[str, str] = {
    "ubuntu": "sudo ubuntu-drivers install",
    "debian": "sudo apt install --reinstall linux-headers-$(uname -r) nvidia-kernel-dkms",
    "fedora": "sudo akmods --force\nsudo dracut --force",
    "rhel": "sudo dkms autoinstall",
}


def _families(ctx: FixContext) -> list[tuple[str, str]]:
    """(family, major version) this machine is, or every family when unknown."""
    m = re.fullmatch(r"(ubuntu|debian|fedora|rhel)(\d*)", ctx.distro or "", re.ASCII)
    if m:
        return [(m.group(1), m.group(2) or "9")]
    return [(family, "9") for family in _LINUX_DRIVER_INSTALL]


def _linux_steps(ctx: FixContext, text: Text, commands: Mapping[str, str | tuple[Text, str]],
                 then: str = "") -> list[FixStep]:
    """One step per Linux family (only this machine's when known), admin and reboot marked."""
    steps = []
    for family, major in _families(ctx):
        entry = commands[family]
        name, command = entry if isinstance(entry, tuple) else (
            _LINUX_DRIVER_INSTALL[family][0], entry)
        command = command.replace("{major}", major) + then
        steps.append(_step(_said("linux-family", family=name, text=text), command, "bash",
                           admin=True, reboot="reboot" in command))
    return steps


def _driver_steps(ctx: FixContext) -> list[FixStep]:
    if ctx.platform == "wsl":
        return [_nvidia_smi(ctx, _said("driver-wsl", url=DRIVER_URL), "bash")]
    if ctx.windows:
        return [_step(_said("driver-windows", url=DRIVER_URL), "nvidia-smi", "cmd", admin=True,
                      reboot=True)]
    return _linux_steps(ctx, _said("driver-linux-install"), _LINUX_DRIVER_INSTALL,
                        "\nnvidia-smi")


def _no_driver(ctx: FixContext) -> list[FixStep]:
    return [*_driver_steps(ctx),
            _step(_said("no-gpu-is-fine"))]


def _driver_not_loaded(ctx: FixContext) -> list[FixStep]:
    if ctx.windows:
        return [_step(_said("driver-reinstall-windows"), "nvidia-smi", "cmd", admin=True,
                      reboot=True)]
    return [_step(_said("driver-modprobe"), "sudo modprobe nvidia\nnvidia-smi", "bash",
                  admin=True),
            *_linux_steps(ctx, _said("driver-linux-rebuild"), _LINUX_DRIVER_REBUILD)]


def _driver_too_old(ctx: FixContext) -> list[FixStep]:
    row = ctx.gpu_build()
    need = ctx.detail.get("cuda") or (row.cuda if row else None)
    steps = []
    minimum = kb.min_driver(need) if need else None
    if minimum:
        # WSL runs on the Windows driver.
        os_name = "windows" if ctx.windows or ctx.platform == "wsl" else "linux"
        drv = ".".join(map(str, minimum.for_os(os_name)))
        # Inside WSL the driver is Windows': it is checked there.
        check = "powershell" if ctx.platform == "wsl" else _here(ctx)
        steps.append(_step(_said("driver-update", cuda=need, driver=drv, source=minimum.source,
                                 url=DRIVER_URL), "nvidia-smi", check, reboot=True))
    else:
        steps.extend(_driver_steps(ctx))
    steps.append(_step(_said("tf-for-driver")))
    return steps


def _tf210_recipe(ctx: FixContext) -> list[FixStep]:
    env = "tf210"
    return [_step(_said("tf210-recipe"),
                    f"conda create -n {env} python=3.10 -y\nconda activate {env}\n"
                    "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0 -y\n"
                    "python -m pip install \"tensorflow<2.11\" \"numpy<2\"", "conda"),
            _step(_said("check"), VERIFY_GPU, "conda")]


def _windows_gpu_unsupported(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("use-wsl2"), "wsl --install", "powershell", admin=True, reboot=True),
            _step(_said("inside-wsl"),
                    "python3 -m pip install \"tensorflow[and-cuda]\"\n" + VERIFY_GPU.replace(
                        "python", "python3", 1), "bash"),
            *_tf210_recipe(ctx),
            _step(_said("train-on-cpu"))]


def _cuda_recipe(ctx: FixContext, cuda: str | None, cudnn: str | None) -> list[FixStep]:
    """Install the CUDA/cuDNN pair a build wants, the way TF's own install guide does."""
    tf = ctx.tf_version
    cuda, cudnn = _version(cuda), _version(cudnn)
    if not ctx.windows and ((cuda or "").startswith("12") or (tf and minor_of(tf) >= (2, 14))):
        pin = f"=={tf[0]}.{tf[1]}.*" if tf else ""
        return [_program(ctx, _said("pip-installs-cuda"),
                         _pip(ctx, "install", f"tensorflow[and-cuda]{pin}"), shell="bash")]
    if not cuda:
        return [_step(_said("cuda-listed"))]
    cudnn_spec = "8.1.0" if cudnn == "8.1" else cudnn
    conda = f"conda install -c conda-forge cudatoolkit={cuda} cudnn={cudnn_spec} -y"
    if ctx.windows:
        return [_step(_said("cuda-conda-windows", cuda=cuda, cudnn=cudnn), conda, "conda"),
                _step(_said("cuda-toolkit-windows", cuda=cuda, cudnn=cudnn))]
    return [_step(_said("cuda-conda-linux", cuda=cuda, cudnn=cudnn),
                    f"{conda}\nexport LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/", "bash")]


def _wanted_pair(ctx: FixContext) -> tuple[str | None, str | None]:
    row = ctx.gpu_build()
    cuda = ctx.detail.get("cuda") or (row.cuda if row else None)
    cudnn = ctx.detail.get("cudnn") or (row.cudnn if row else None)
    return cuda, cudnn


def _missing_cuda(ctx: FixContext) -> list[FixStep]:
    cuda, cudnn = _wanted_pair(ctx)
    steps = []
    if lib := ctx.detail.get("library"):
        steps.append(_step(_said("looked-for-cuda", library=lib, cuda=cuda) if cuda else
                           _said("looked-for", library=lib)))
    if ctx.detail.get("unnamed"):
        steps.append(_step(_said("rerun-verbose"), "TF_CPP_MAX_VLOG_LEVEL=1 python your_script.py",
                           "bash"))
    if ctx.detail.get("xla"):
        return [*steps, *_xla_toolkit(ctx, cuda)]  # the GPU is listed: rerun the script
    steps.extend(_cuda_recipe(ctx, cuda, cudnn))
    steps.append(_verify(ctx))
    return steps


def _xla_toolkit(ctx: FixContext, cuda: str | None) -> list[FixStep]:
    """XLA's compiler pieces: NVIDIA's pip wheel of nvcc for the CUDA major TF wants (12 from
    TF 2.15, 11 before), or XLA_FLAGS at a toolkit folder that has them."""
    major = (cuda or "").split(".")[0] or (
        "12" if ctx.tf_version and minor_of(ctx.tf_version) >= (2, 15) else "11")
    return [_step(_said("xla-toolkit"), f"{ctx.exe} -m pip install nvidia-cuda-nvcc-cu{major}"),
            _step(_said("xla-data-dir"), "export XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda",
                  "bash")]


def _missing_cudnn(ctx: FixContext) -> list[FixStep]:
    cuda, cudnn = (_version(v) for v in _wanted_pair(ctx))
    lib = ctx.detail.get("library", "")
    steps = []
    if lib.startswith("zlibwapi"):
        steps.append(_step(_said("zlibwapi"), "conda install -c conda-forge cudnn=8.1.0 -y",
                           "conda"))
    elif lib.startswith("cudnn_") and ctx.windows:
        steps.append(_step(_said("cudnn-sublibrary", library=lib)))
    if not ctx.windows and ctx.tf_version and minor_of(ctx.tf_version) >= (2, 14):
        steps.extend(_cuda_recipe(ctx, cuda, cudnn))
    elif cudnn:
        spec = "8.1.0" if cudnn == "8.1" else cudnn
        steps.append(_step(_said("cudnn-conda", cudnn=cudnn, cuda=cuda),
                           f"conda install -c conda-forge cudnn={spec} -y", "conda"))
        steps.append(_step(_said("cudnn-download")))
    else:
        steps.append(_step(_said("cudnn-listed")))
    steps.append(_verify(ctx))
    return steps


def _mismatch(ctx: FixContext) -> list[FixStep]:
    cuda, cudnn = _wanted_pair(ctx)
    have = ctx.detail.get("installed")
    steps = []
    if cuda or cudnn:
        wants = (_said("wants-cuda-cudnn", cuda=cuda, cudnn=cudnn) if cuda and cudnn else
                 _said("wants-cuda", cuda=cuda) if cuda else _said("wants-cudnn", cudnn=cudnn))
        steps.append(_step(_said("wants-installed", wants=wants, installed=have) if have else
                           _said("wants", wants=wants)))
    steps.extend(_cuda_recipe(ctx, cuda, cudnn))
    steps.append(_step(_said("tf-for-cuda")))
    steps.append(_verify(ctx))
    return steps


_MSVC_DLLS = ("msvcp140.dll", "msvcp140_1.dll", "vcruntime140.dll", "vcruntime140_1.dll")


def _msvc_check(ctx: FixContext) -> FixStep:
    return _program(ctx, _said("msvc-check"), ["where", *_MSVC_DLLS],
                    shell="cmd")


def _msvc(ctx: FixContext) -> list[FixStep]:
    lib = ctx.detail.get("library")
    provides = lib if lib and kb.library_info(lib).kind == "msvc" else None
    # The redistributable installs for the whole machine: an elevated (UAC) install.
    install = [_step(_said("msvc-install-provides", library=provides) if provides else
                     _said("msvc-install"),
                     "winget install --id Microsoft.VCRedist.2015+.x64 -e", "cmd", admin=True),
               _step(_said("msvc-download", url=VC_REDIST_URL))]
    # A named DLL is the cause; an unnamed one ("DLL load failed") is checked first.
    return install if provides else [_msvc_check(ctx), *install]


def _avx_check(ctx: FixContext) -> FixStep:
    if ctx.windows:
        return _program(ctx, _said("avx-check-windows"),
                        [ctx.exe, "-c", "import ctypes; "
                         "print(bool(ctypes.windll.kernel32.IsProcessorFeaturePresent(39)))"],
                        shell="cmd")
    return _program(ctx, _said("avx-check-linux"),
                    ["grep", "-o", "-m1", "-w", "avx", "/proc/cpuinfo"], shell="bash")


def _no_avx(ctx: FixContext) -> list[FixStep]:
    return [_avx_check(ctx),
            _step(_said("avx-needed"))]


def _python_unsupported(ctx: FixContext) -> list[FixStep]:
    if ctx.detail.get("tflite"):
        return [_program(ctx, _said("litert"), _pip(ctx, "install", "ai-edge-litert"))]
    row = kb.python_range_for(ctx.tf_version, ctx.platform) if ctx.tf_version else None
    steps = []
    if ctx.detail.get("bits") == 32:
        steps.append(_step(_said("python-64-bit")))
    if row:
        newest = max(high for _, high in row.python)
        ver = f"{newest[0]}.{newest[1]}"
        pin = row.label.rsplit(".", 1)[0]
        steps.append(_step(_said("python-range", tf=row.label, pythons=row.python_text,
                                 python=ver),
                             f"conda create -n tf python={ver} -y\nconda activate tf\n"
                             f"python -m pip install \"tensorflow=={pin}.*\"",
                             "conda"))
    else:
        newest = max(high for r in kb.build_configs() if r.status == "listed"
                     for _, high in r.python)
        ver = f"{newest[0]}.{newest[1]}"
        steps.append(_step(_said("python-newest", python=ver),
                           f"conda create -n tf python={ver} -y\nconda activate tf\n"
                           "python -m pip install tensorflow", "conda"))
    return steps


def _mixed(ctx: FixContext) -> list[FixStep]:
    numpy = ctx.detail.get("numpy")
    if numpy == "downgrade":
        return [_program(ctx, _said("numpy-downgrade"), _pip(ctx, "install", "numpy<2"))]
    if numpy == "upgrade":
        return [_program(ctx, _said("numpy-upgrade"),
                         _pip(ctx, "install", "--upgrade", "numpy"))]
    if ctx.detail.get("companion"):
        return [_program(ctx, _said("companion-match"), _pip(ctx, "check"))]
    if ctx.detail.get("protobuf"):
        return [_program(ctx, _said("protobuf-downgrade"),
                         _pip(ctx, "install", "protobuf<3.21"))]
    pin = f"=={ctx.tf_version[0]}.{ctx.tf_version[1]}.*" if ctx.tf_version else ""
    return [_program(ctx, _said("one-variant"),
                     _pip(ctx, "uninstall", "-y", "tensorflow", "tensorflow-cpu", "tensorflow-gpu",
                          "tensorflow-intel", "tf-nightly", "tf-nightly-gpu", "keras"),
                     _pip(ctx, "install", f"tensorflow{pin}"))]


def _native_failed(ctx: FixContext) -> list[FixStep]:
    steps = []
    if ctx.windows or ctx.platform is None:
        steps.extend(_msvc(ctx)[:2])
    steps.append(_avx_check(ctx))
    steps.append(_step(_said("python-check")))
    steps.append(_program(ctx, _said("reinstall-tf"),
                          _pip(ctx, "install", "--force-reinstall", "--no-cache-dir",
                               "tensorflow")))
    steps.append(_program(ctx, _said("walk-imports"),
                          ["tensordeck", "doctor", "--python", ctx.named]))
    return steps


def _legacy_keras_pin(ctx: FixContext) -> str:
    tf = ctx.tf_version
    return f"tf-keras~={tf[0]}.{tf[1]}.0" if tf else "tf-keras"


def _keras3(ctx: FixContext) -> list[FixStep]:
    if ctx.detail.get("estimator"):
        return [_program(ctx, _said("estimator-pin"), _pip(ctx, "install", "tensorflow<2.16")),
                _step(_said("estimator-port"))]
    tf_keras = _version(ctx.detail.get("tf_keras"))
    use_legacy = ([_step(_said("tf-keras-installed", version=tf_keras))]
                  if tf_keras else [_program(ctx, _said("tf-keras-install"),
                                             _pip(ctx, "install", _legacy_keras_pin(ctx)))])
    return [*use_legacy,
            _set_env(ctx, "TF_USE_LEGACY_KERAS", "1"),
            _step(_said("custom-loop"))]


def _nccl(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("nccl-reduction"),
                    "strategy = tf.distribute.MirroredStrategy(\n"
                    "    cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())", "any"),
            _step(_said("nccl-other"))]


def _oom(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("oom-batch")),
            _set_env(ctx, "TF_FORCE_GPU_ALLOW_GROWTH", "true"),
            _nvidia_smi(ctx, _said("oom-who"), _here(ctx))]


def _host_oom(ctx: FixContext) -> list[FixStep]:
    check = ("systeminfo | findstr /C:\"Available Physical Memory\"" if ctx.windows
             else "free -h")
    return [_step(_said("oom-batch")),
            _step(_said("host-memory-check"), check, _here(ctx)),
            _program(ctx, _said("host-memory-gpu"),
                     ["tensordeck", "doctor", "--python", ctx.named])]


def _port(ctx: FixContext) -> list[FixStep]:
    # Only digits reach the shell lines below (a pasted log may say anything).
    port = _port_number(ctx.detail.get("port"))
    if ctx.windows:
        reserved = ["netsh", "interface", "ipv4", "show", "excludedportrange", "protocol=tcp"]
        who = f"netstat -ano | findstr :{port or 'PORT'}"
        return [_step(_said("port-who-windows"),
                        f"{who}\n{' '.join(reserved)}", "cmd",
                        argv=(("cmd", "/d", "/c", who), tuple(reserved)) if port else ()),
                _step(_said("port-free-windows"))]
    who = f"ss -ltnp | grep :{port or 'PORT'}"
    return [_step(_said("port-who"), who, "bash",
                    argv=(("/bin/sh", "-c", who),) if port else ()),
            _step(_said("port-free"))]


def _conda_env(ctx: FixContext) -> list[FixStep]:
    env = "ENV"  # the name read from a pasted log, quoted; a placeholder when it cannot be
    if ctx.conda_env:
        with contextlib.suppress(UnsafeValue):
            env = shell_word(ctx.conda_env, shell_kind("conda", ctx.windows))
    if ctx.detail.get("front_end"):
        return [*_front_end_steps(ctx, env), _verify(ctx)]
    steps = [_step(_said("conda-activate"),
                     f"conda activate {env}\npython your_script.py", "conda"),
             _step(_said("conda-run"), f"conda run -n {env} python your_script.py",
                     "conda")]
    if not ctx.windows:
        steps.append(_step(_said("conda-ld-library-path"),
                             "mkdir -p $CONDA_PREFIX/etc/conda/activate.d\n"
                             "echo 'export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/' > "
                             "$CONDA_PREFIX/etc/conda/activate.d/env_vars.sh", "bash"))
    steps.append(_verify(ctx))
    return steps


def _front_end_steps(ctx: FixContext, env: str) -> list[FixStep]:
    """A notebook or editor that runs another Python than the terminal: show both, then start
    it from the activated env (it inherits the env's library paths) or register the env."""
    return [_program(ctx, _said("front-end-which"),
                     [ctx.exe, "-c", "import sys; print(sys.executable)"]),
            _step(_said("front-end-start"), f"conda activate {env}\njupyter lab", "conda"),
            _step(_said("front-end-kernel"),
                  f"conda activate {env}\npython -m pip install ipykernel\n"
                  f"python -m ipykernel install --user --name {env}", "conda")]


def _tf1(ctx: FixContext) -> list[FixStep]:
    script = ctx.detail.get("script", "script.py")
    stem = script[:-3] if script.endswith(".py") else script
    steps = [_step(_said("tf1-compat"),
                     "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()", "any"),
             _program(ctx, _said("tf1-convert"),
                      ["tf_upgrade_v2", "--infile", script, "--outfile", f"{stem}_v2.py"])]
    removed = ctx.detail.get("removed") or ()
    steps[:0] = [_step(_REMOVED_MODULES[m]) for m in _REMOVED_MODULES if m in removed]
    return steps


#: Modules of TF 1.x that TF 2 removed (the compat module does not bring them back), and what
#: replaces them.
_REMOVED_MODULES = {
    "tensorflow.contrib": _said("removed-contrib"),
    "tensorflow.examples": _said("removed-examples"),
}
REMOVED_MODULES = tuple(_REMOVED_MODULES)


def _peer(ctx: FixContext) -> list[FixStep]:
    # NCCL takes the first interface it finds, often one the others cannot reach (docker0, lo).
    nccl = [_step(_said("peer-nccl-interface"), "export NCCL_SOCKET_IFNAME=eth0\n"
                  "# or leave out the unreachable ones: export NCCL_SOCKET_IFNAME=^docker0,lo",
                  "bash")] if ctx.detail.get("nccl") else []
    return [*nccl, _step(_said("peer-check"),
                    "Test-NetConnection HOST -Port PORT" if ctx.windows else "nc -vz HOST PORT",
                    "powershell" if ctx.windows else "bash"),
            _step(_said("peer-firewall"),
                    "netsh advfirewall firewall add rule name=\"TensorFlow cluster\" dir=in "
                    "action=allow protocol=TCP localport=2222-2299" if ctx.windows
                    else "sudo ufw allow 2222:2299/tcp", _here(ctx), admin=True),
            _step(_said("peer-device-filters"),
                    "config = tf.compat.v1.ConfigProto(device_filters=[\"/job:ps\", "
                    "\"/job:worker/task:%d\" % task_index])\n"
                    "# pass config=config to MonitoredTrainingSession / Session", "any")]


def _optional(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("optional-nothing"))]


def _cpu_build(ctx: FixContext) -> list[FixStep]:
    if ctx.platform == "macos":
        return [_step(_said("macos-metal"), "python -m pip install tensorflow-metal", "bash"),
                _step(_said("macos-nvidia"))]
    tf = ctx.tf_version
    if tf and minor_of(tf) < (2, 1):
        # Before 2.1 the GPU build was its own package; `tensorflow` was CPU-only.
        return [_program(ctx, _said("tensorflow-gpu-package", tf=f"{tf[0]}.{tf[1]}"),
                         _pip(ctx, "uninstall", "-y", "tensorflow"),
                         _pip(ctx, "install", f"tensorflow-gpu=={tf[0]}.{tf[1]}.*"))]
    if ctx.windows:
        return _windows_gpu_unsupported(ctx) if ctx.tf_version and not kb.windows_gpu_supported(
            ctx.tf_version) else _tf210_recipe(ctx)
    return [_program(ctx, _said("install-gpu-build"),
                     _pip(ctx, "install", "tensorflow[and-cuda]"), shell="bash")]


def _gpu_arch(ctx: FixContext) -> list[FixStep]:
    """A release whose build covers the GPU (``detail["capability"]``), else the CPU build."""
    from core.gpu.capability import capability_text

    capability = ctx.detail.get("capability")
    cc = (_said("compute-capability", capability=capability_text(capability)) if capability
          else _said("this-gpu"))
    releases = kb.releases_running_on(capability, ctx.platform) if capability else []
    if releases and ctx.windows and releases[0] == kb.last_windows_gpu_release():
        return _tf210_recipe(ctx)
    if releases:
        tf = ".".join(map(str, releases[0]))
        return [_program(ctx, _said("arch-release", tf=tf, gpu=cc),
                         _pip(ctx, "install", f"tensorflow[and-cuda]=={tf}.*"), shell="bash")]
    cpu = (f"tensorflow-cpu=={'.'.join(map(str, minor_of(ctx.tf_version)))}.*"
           if ctx.tf_version else "tensorflow-cpu")
    return [_program(ctx, _said("arch-none", gpu=cc),
                     _pip(ctx, "uninstall", "-y", "tensorflow"),
                     _pip(ctx, "install", cpu))]


def _wsl_linux_driver(ctx: FixContext) -> list[FixStep]:
    """Remove the Linux driver from the distribution (apt's packages when dpkg listed them,
    else the .run installer's uninstaller), and install nothing there again."""
    packages = [p for p in ctx.detail.get("driver_packages") or () if DEB_PACKAGE.fullmatch(p)]
    if packages:
        remove = _step(_said("wsl-driver-purge"),
                       f"sudo apt-get purge {' '.join(packages)}\nsudo apt-get autoremove",
                       "bash", admin=True)
    else:
        remove = _step(_said("wsl-driver-uninstall"), "sudo nvidia-uninstall", "bash",
                       admin=True)
    return [remove,
            _step(_said("wsl-driver-ldconfig"), "sudo ldconfig\nldconfig -p | grep libcuda",
                  "bash", admin=True),
            _step(_said("wsl-driver-nothing-inside")),
            _verify(ctx)]


def _wsl_gpu_unavailable(ctx: FixContext) -> list[FixStep]:
    """The Windows driver and WSL itself are updated on Windows; the result is seen inside."""
    return [_step(_said("wsl-windows-driver", url=DRIVER_URL), "nvidia-smi", "powershell",
                  admin=True, reboot=True),
            _step(_said("wsl-update"), "wsl --update\nwsl --shutdown\nwsl -l -v", "powershell",
                  admin=True),
            _program(ctx, _said("wsl-gpu-check"),
                     ["ls", "-l", "/dev/dxg", "/usr/lib/wsl/lib/libcuda.so.1"],
                     ["/usr/lib/wsl/lib/nvidia-smi"], shell="bash")]


def _pip_check(ctx: FixContext) -> FixStep:
    return _program(ctx, _said("pip-check"), _pip(ctx, "check"))


def _pip_failed(ctx: FixContext) -> list[FixStep]:
    why = ctx.detail.get("why")
    if why == "wheel":
        return [_program(ctx, _said("pip-wheel-tags"), _pip(ctx, "debug", "--verbose")),
                _step(_said("pip-wheel-download"))]
    if why == "build":
        return [_step(_said("pip-build"))]
    if why in ("old-pip", "old-pip-tags"):
        said = _said("pip-upgrade" if why == "old-pip" else "pip-upgrade-tags")
        return [_program(ctx, said, _pip(ctx, "install", "--upgrade", "pip"))]
    if why == "access":
        return [_step(_said("pip-access"),
                        "python -m pip install --user PACKAGE", _here(ctx))]
    if why == "long-path":
        return [_step(_said("pip-long-path"),
                        "reg add HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem "
                        "/v LongPathsEnabled /t REG_DWORD /d 1 /f", "cmd", admin=True),
                _step(_said("pip-short-folder"))]
    if why == "network":
        return [_step(_said("pip-network"))]
    # A resolver conflict: the requirements cannot all hold at once.
    return [_step(_said("pip-conflict"),
                    "python -m venv tf-env\n"
                    + ("tf-env\\Scripts\\python" if ctx.windows else "tf-env/bin/python")
                    + " -m pip install tensorflow", _here(ctx)),
            _step(_said("pip-relax"))]


#: What a known dependency failure needs, by distribution (the generic fix is pip check).
_DEPENDENCY_FIX = {
    "numpy": _said("dependency.numpy"),
    "protobuf": _said("dependency.protobuf"),
    "ml-dtypes": _said("dependency.ml-dtypes"),
    "h5py": _said("dependency.h5py"),
}


def _dependency(ctx: FixContext) -> list[FixStep]:
    package = ctx.detail.get("package")
    steps = [_pip_check(ctx)]
    if package == "numpy" and ctx.detail.get("numpy") == "aliases":
        steps.append(_program(ctx, _DEPENDENCY_FIX["numpy"], _pip(ctx, "install", "numpy<1.24")))
        return steps
    if pin := ctx.detail.get("pin"):  # a release line this TF's code needs: "h5py<3"
        steps.append(_program(ctx, _said(f"dependency.pin.{package}"), _pip(ctx, "install", pin)))
        return steps
    known = _DEPENDENCY_FIX.get(package or "")
    spec = f"tensorflow=={ctx.tf_version[0]}.{ctx.tf_version[1]}.*" if ctx.tf_version else \
        "tensorflow"
    lead = known or (_said("dependency.other", package=package) if package else None)
    if package and re.fullmatch(r"[A-Za-z0-9_.-]+", package, re.ASCII):
        steps.append(_program(ctx, _said("reinstall-package-after", lead=lead) if lead else
                              _said("reinstall-package"),
                              _pip(ctx, "install", "--force-reinstall", spec, package)))
    else:
        steps.append(_program(ctx, _said("reinstall-with-requirements-after", lead=lead) if lead
                              else _said("reinstall-with-requirements"),
                              _pip(ctx, "install", "--force-reinstall", spec)))
    return steps


def _install_tf(ctx: FixContext) -> list[FixStep]:
    return [_program(ctx, _said("install-tf"), _pip(ctx, "install", "tensorflow"))]


def _shadowed(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("shadowed-move")),
            _program(ctx, _said("shadowed-check"),
                     [ctx.exe, "-c", "import tensorflow; print(tensorflow.__file__)"])]


def _os_too_old(ctx: FixContext) -> list[FixStep]:
    if ctx.detail.get("macos"):
        return [_step(_said("os-old-check-macos", version=ctx.detail["macos"]),
                      "sw_vers -productVersion", "bash"), _step(_said("os-old-build-macos"))]
    steps = [_step(_said("os-old-check"), "ldd --version | head -n 1\n"
                   "grep -ao 'GLIBCXX_[0-9.]*[0-9]' \"$(ldconfig -p | grep -m 1 "
                   "'libstdc++.so.6 ' | sed 's/.*=> //')\" | sort -uV | tail -n 1", "bash")]
    if ctx.detail.get("library") == "libstdc++":
        # conda-forge's libstdc++ is newer than most systems' and goes first in the env.
        steps.append(_step(_said("os-old-libstdcxx"), "conda install -c conda-forge "
                           "libstdcxx-ng", "conda"))
    steps.append(_step(_said("os-old-build")))
    return steps


def _tf_too_old(ctx: FixContext) -> list[FixStep]:
    tf1 = ctx.tf_version is not None and ctx.tf_version < (2, 0)
    # TF 1.15 has every name TF 1 gained and keeps TF 1's API, which TF 2 removed.
    upgrade = ["install", "tensorflow==1.15.*"] if tf1 else ["install", "--upgrade", "tensorflow"]
    return [_program(ctx, _said("tf-version-check"),
                     [ctx.exe, "-c", "import tensorflow as tf; print(tf.__version__)"]),
            _program(ctx, _said("tf-too-old-upgrade-1" if tf1 else "tf-too-old-upgrade"),
                     _pip(ctx, *upgrade))]


def _module_not_installed(ctx: FixContext) -> list[FixStep]:
    package = ctx.detail.get("package")
    install = _program(ctx, _said("module-install", module=ctx.detail.get("module")),
                       _pip(ctx, "install", package)) if package else _step(_said("module-find"))
    return [install, _step(_said("module-env"))]


def _protos_not_compiled(ctx: FixContext) -> list[FixStep]:
    steps = [_step(_said("protoc-newer"))] if ctx.detail.get("protoc") == "failed" else []
    # A dotted package name or a .proto's folder, ASCII word characters, dots and slashes only
    # (the rule's patterns): nothing a shell would read, and the glob must stay unquoted.
    folder = ctx.detail.get("protos") or ""
    if not re.fullmatch(r"[A-Za-z_][\w/.-]*", folder, re.ASCII) or ".." in folder:
        return [*steps, _step(_said("protoc-generate-guide"))]
    text = _said("protoc-generate", top=folder.split("/")[0], folder=folder)
    if ctx.windows:  # protoc does not expand *.proto on Windows
        win = folder.replace("/", "\\")
        return [*steps, _step(text, f"for /f %i in ('dir /b {win}\\*.proto') do "
                                    f"protoc {win}\\%i --python_out=.", "cmd")]
    return [*steps, _step(text, f"protoc {folder}/*.proto --python_out=.", "bash")]


def _api_removed(ctx: FixContext) -> list[FixStep]:
    row = kb.removed_apis().get(ctx.detail.get("api") or "")
    if row is None:
        return [_step(_said("api-removed-find"))]
    steps = [_step(_said("api-removed-instead", name=row.shown, instead=row.instead))]
    if row.pin:
        steps.append(_program(ctx, _said("api-removed-pin", name=row.shown),
                              _pip(ctx, "install", row.pin)))
    return steps


def _addon_ops_not_loaded(ctx: FixContext) -> list[FixStep]:
    module = ctx.detail.get("module") or "tensorflow_text"
    package = ctx.detail.get("package") or "tensorflow-text"
    # tensorflow-text's releases follow TensorFlow 2's (2.15 for 2.15); Addons' do not.
    tf = ctx.tf_version
    pin = (f"{package}=={tf[0]}.{tf[1]}.*"
           if package == "tensorflow-text" and tf and len(tf) > 1 and tf[0] == 2 else package)
    return [_step(_said("addon-import", module=module)),
            _program(ctx, _said("addon-install", package=package), _pip(ctx, "install", pin))]


def _no_windows_build(ctx: FixContext) -> list[FixStep]:
    steps = []
    package, last = ctx.detail.get("package"), ctx.detail.get("last")
    if package and last:
        tf = ctx.detail.get("tensorflow")
        pins = [f"tensorflow=={tf}.*"] if tf else []
        steps.append(_program(ctx, _said("windows-wheel-pin", python=ctx.detail.get("python")),
                              _pip(ctx, "install", *pins, f"{package}=={last}")))
    steps.append(_step(_said("windows-wheel-wsl")))
    return steps


def _unrecognized(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("unrecognized-read")),
            _step(_said("unrecognized-walk"),
                    "tensordeck doctor --python PATH", "any")]


def _no_error(ctx: FixContext) -> list[FixStep]:
    return [_step(_said("no-error-paste")),
            _step(_said("no-error-vlog"),
                    "TF_CPP_MAX_VLOG_LEVEL=1 " + VERIFY_GPU, "bash")]


_STEPS: dict[str, Callable[[FixContext], list[FixStep]]] = {
    "pip-install-failed": _pip_failed,
    "dependency-version-conflict": _dependency,
    "unrecognized-error": _unrecognized,
    "no-error-found": _no_error,
    "no-nvidia-driver": _no_driver,
    "driver-not-loaded": _driver_not_loaded,
    "driver-too-old": _driver_too_old,
    "tf-windows-gpu-unsupported": _windows_gpu_unsupported,
    "missing-cuda-runtime": _missing_cuda,
    "missing-cudnn": _missing_cudnn,
    "cuda-version-mismatch": _mismatch,
    "missing-msvc-runtime": _msvc,
    "cpu-no-avx": _no_avx,
    "python-unsupported": _python_unsupported,
    "mixed-tf-packages": _mixed,
    "native-runtime-load-failed": _native_failed,
    "keras3-strategy-unsupported": _keras3,
    "nccl-unavailable": _nccl,
    "gpu-out-of-memory": _oom,
    "host-out-of-memory": _host_oom,
    "tf-not-installed": _install_tf,
    "tf-shadowed": _shadowed,
    "os-too-old": _os_too_old,
    "tf-too-old": _tf_too_old,
    "module-not-installed": _module_not_installed,
    "protos-not-compiled": _protos_not_compiled,
    "api-removed": _api_removed,
    "addon-ops-not-loaded": _addon_ops_not_loaded,
    "no-windows-build": _no_windows_build,
    "port-in-use": _port,
    "conda-env-not-activated": _conda_env,
    "tf1-api-on-tf2": _tf1,
    "peer-unreachable": _peer,
    "optional-library-missing": _optional,
    "cpu-only-build": _cpu_build,
    "gpu-arch-unsupported": _gpu_arch,
    "wsl-linux-driver": _wsl_linux_driver,
    "wsl-gpu-unavailable": _wsl_gpu_unavailable,
}
