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
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.doctor import kb
from core.doctor.kb import Version, minor_of
from core.findings import Finding, FixStep, Severity, Text
from core.output import control_character
from core.remote.shell import quote as remote_quote

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
        return self.python_exe or "python"

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
    "port-in-use": "error",
    "conda-env-not-activated": "error",
    "tf1-api-on-tf2": "error",
    "peer-unreachable": "error",
    "optional-library-missing": "info",
    "gpu-arch-unsupported": "error",
    "cpu-only-build": "info",
    "probe-failed": "warning",
    "tf-not-installed": "info",
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
    steps = _STEPS[fid](ctx) if fid in _STEPS else ()
    title = title or Text.of(f"finding.{fid}")
    return Finding(fid, severity or _CATALOG[fid], title.en, evidence, tuple(steps),
                   message=title)


def finding_title(key: str, /, **params: object) -> Text:
    """The title message ``finding.<key>`` (``key``: a finding id, or ``<id>.<variant>``)."""
    return Text.of(f"finding.{key}", **params)


def is_known(fid: str) -> bool:
    return fid in _CATALOG


# --- quoting --------------------------------------------------------------------------------

class UnsafeValue(ValueError):
    """A value that the shell of its step cannot be given safely."""


_POSIX_PLAIN = re.compile(r"[A-Za-z0-9_./:@%+=,-]+\Z")
_POSIX_DOUBLE_QUOTED_SPECIAL = re.compile(r'[$`"\\!]')  # ! : bash history expansion
_CMD_PLAIN = re.compile(r"[A-Za-z0-9_./:\\@+-]+\Z")
# cmd has no escape inside quotes: " ends them, %VAR% and !VAR! expand there.
_CMD_UNQUOTABLE = re.compile('["%!]')
_PS_TYPOGRAPHIC_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_PORT = re.compile(r"\d{1,5}\Z")
_VERSION = re.compile(r"\d{1,4}(\.\d{1,4}){0,3}\Z")


def shell_kind(shell: str, windows: bool) -> str:
    """The quoting rules of a step's ``shell``: "posix", "cmd" or "powershell"."""
    if shell == "powershell":
        return "powershell"
    if shell == "cmd" or (shell in ("conda", "any") and windows):
        return "cmd"
    return "posix"


def shell_word(value: str, kind: str) -> str:
    """``value`` as one word for ``kind``'s shell: as is when nothing in it is special, else
    quoted. UnsafeValue when that shell cannot carry it (a control character anywhere; ``"``,
    ``%`` or ``!`` for cmd)."""
    if control_character(value):
        raise UnsafeValue(f"{value!r} holds a control character")
    if kind == "posix":
        if _POSIX_PLAIN.match(value):
            return value
        return shlex.quote(value) if _POSIX_DOUBLE_QUOTED_SPECIAL.search(value) else f'"{value}"'
    if kind == "cmd":
        if _CMD_PLAIN.match(value):
            return value
        if _CMD_UNQUOTABLE.search(value):
            raise UnsafeValue(f"{value!r} cannot be quoted for cmd")
        # Backslashes before the closing quote are doubled (the C runtime's rule).
        trailing = len(value) - len(value.rstrip("\\"))
        return '"' + value + "\\" * trailing + '"'
    if _PS_TYPOGRAPHIC_QUOTES.search(value):
        raise UnsafeValue(f"{value!r} holds a quote PowerShell reads as its own")
    return remote_quote(value, "powershell")


def _port_number(value: object) -> str | None:
    return str(value) if _PORT.match(str(value)) else None


def _version(value: object) -> str | None:
    """A version read from a log or the knowledge base, only if it is one (it goes into
    commands)."""
    return str(value) if value is not None and _VERSION.match(str(value)) else None


def _program(ctx: FixContext, text: str, *programs: Sequence[str], shell: str = "any") -> FixStep:
    """A step that runs ``programs`` (argument lists) one after the other. The window runs the
    argument lists as they are; the command text quotes each word for ``shell``. A value no
    shell rule can carry leaves the step without a command."""
    kind = shell_kind(shell, ctx.windows)
    try:
        command = "\n".join(" ".join(shell_word(w, kind) for w in p) for p in programs)
    except UnsafeValue as exc:
        return FixStep(f"{text} (TensorDeck leaves the command out: {exc})")
    return FixStep(text, command, shell, argv=tuple(tuple(p) for p in programs))


def _pip(ctx: FixContext, *args: str) -> list[str]:
    """``pip`` of the training interpreter itself, so the fix lands in the right env."""
    return [ctx.exe, "-m", "pip", *args]


# --- steps per id ---------------------------------------------------------------------------

def _set_env(ctx: FixContext, name: str, value: str) -> FixStep:
    if ctx.windows:
        return FixStep(f"Set {name} for the training process (this console):",
                       f"set {name}={value}", "cmd")
    return FixStep(f"Set {name} for the training process:", f"export {name}={value}", "bash")


def _here(ctx: FixContext) -> str:
    return "cmd" if ctx.windows else "bash"


def _verify(ctx: FixContext) -> FixStep:
    return _program(ctx, "Check that TensorFlow now lists the GPU:",
                    [ctx.exe, "-c", VERIFY_GPU_CODE], shell=_here(ctx))


def _nvidia_smi(ctx: FixContext, text: str, shell: str) -> FixStep:
    return _program(ctx, text, ["nvidia-smi"], shell=shell)


#: How each Linux family installs the NVIDIA driver (NVIDIA's and the distributions' own
#: guides): (name, commands). Every one needs root and takes effect after a reboot.
_LINUX_DRIVER_INSTALL: dict[str, tuple[str, str]] = {
    "ubuntu": ("Ubuntu", "sudo ubuntu-drivers install\nsudo reboot"),
    "debian": ("Debian (enable the contrib, non-free and non-free-firmware components in "
               "/etc/apt/sources.list first)",
               "sudo apt update\nsudo apt install linux-headers-amd64 nvidia-driver "
               "firmware-misc-nonfree\nsudo reboot"),
    "fedora": ("Fedora (from RPM Fusion)",
               "sudo dnf install https://mirrors.rpmfusion.org/nonfree/fedora/"
               "rpmfusion-nonfree-release-$(rpm -E %fedora).noarch.rpm\n"
               "sudo dnf install akmod-nvidia xorg-x11-drv-nvidia-cuda\nsudo reboot"),
    "rhel": ("RHEL / Rocky / AlmaLinux (NVIDIA's repository)",
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
    m = re.fullmatch(r"(ubuntu|debian|fedora|rhel)(\d*)", ctx.distro or "")
    if m:
        return [(m.group(1), m.group(2) or "9")]
    return [(family, "9") for family in _LINUX_DRIVER_INSTALL]


def _linux_steps(ctx: FixContext, text: str, commands: dict[str, str | tuple[str, str]],
                 then: str = "") -> list[FixStep]:
    """One step per Linux family (only this machine's when known), admin and reboot marked."""
    steps = []
    for family, major in _families(ctx):
        entry = commands[family]
        name, command = entry if isinstance(entry, tuple) else (
            _LINUX_DRIVER_INSTALL[family][0], entry)
        command = command.replace("{major}", major) + then
        steps.append(FixStep(f"{name}: {text}:", command, "bash", admin=True,
                             reboot="reboot" in command))
    return steps


def _driver_steps(ctx: FixContext) -> list[FixStep]:
    if ctx.platform == "wsl":
        return [_nvidia_smi(ctx, "WSL2 uses the Windows NVIDIA driver: install or update it on "
                            f"Windows ({DRIVER_URL}); do not install a Linux driver inside WSL. "
                            "Then, in WSL:", "bash")]
    if ctx.windows:
        return [FixStep(f"Install the NVIDIA display driver for your GPU from {DRIVER_URL} "
                        "(it provides nvcuda.dll and nvml.dll in System32), reboot, then check:",
                        "nvidia-smi", "cmd", admin=True, reboot=True)]
    return _linux_steps(ctx, "install the NVIDIA driver, reboot, then check with nvidia-smi",
                        _LINUX_DRIVER_INSTALL, "\nnvidia-smi")


def _no_driver(ctx: FixContext) -> list[FixStep]:
    return [*_driver_steps(ctx),
            FixStep("If this machine has no NVIDIA GPU, nothing is broken: TensorFlow trains on "
                    "the CPU.")]


def _driver_not_loaded(ctx: FixContext) -> list[FixStep]:
    if ctx.windows:
        return [FixStep("Reinstall the NVIDIA driver (clean install) and reboot; check Device "
                        "Manager that the GPU has no warning sign. Then:", "nvidia-smi", "cmd",
                        admin=True, reboot=True)]
    return [FixStep("The kernel module does not match or is not loaded (usual after a driver or "
                    "kernel update): reboot, or load it, then check:",
                    "sudo modprobe nvidia\nnvidia-smi", "bash", admin=True),
            *_linux_steps(ctx, "if it still fails, rebuild the driver for the running kernel",
                          _LINUX_DRIVER_REBUILD)]


def _driver_too_old(ctx: FixContext) -> list[FixStep]:
    need = ctx.detail.get("cuda") or (ctx.gpu_build().cuda if ctx.gpu_build() else None)
    steps = []
    minimum = kb.min_driver(need) if need else None
    if minimum:
        os_name = "windows" if ctx.windows else "linux"
        drv = ".".join(map(str, minimum.for_os(os_name)))
        steps.append(FixStep(f"CUDA {need} needs NVIDIA driver {drv} or newer "
                             f"({minimum.source}). Update the driver ({DRIVER_URL}), reboot, and "
                             "check that nvidia-smi's 'CUDA Version' is at least "
                             f"{need}:", "nvidia-smi", _here(ctx), reboot=True))
    else:
        steps.extend(_driver_steps(ctx))
    steps.append(FixStep("Or install a TensorFlow release built for a CUDA your driver "
                         "supports (see the table at https://www.tensorflow.org/install/source"
                         "#gpu)."))
    return steps


def _tf210_recipe(ctx: FixContext) -> list[FixStep]:
    env = "tf210"
    return [FixStep("Native Windows GPU: TensorFlow 2.10 with CUDA 11.2 and cuDNN 8.1 in a conda "
                    "env (Python 3.7-3.10), from an Anaconda Prompt:",
                    f"conda create -n {env} python=3.10 -y\nconda activate {env}\n"
                    "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0 -y\n"
                    "python -m pip install \"tensorflow<2.11\" \"numpy<2\"", "conda"),
            FixStep("Check:", VERIFY_GPU, "conda")]


def _windows_gpu_unsupported(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Use WSL2 (Windows 10 21H2+ / 11) with the Windows NVIDIA driver; in "
                    "PowerShell as administrator:", "wsl --install", "powershell", admin=True,
                    reboot=True),
            FixStep("Then inside WSL (Ubuntu):",
                    "python3 -m pip install \"tensorflow[and-cuda]\"\n" + VERIFY_GPU.replace(
                        "python", "python3", 1), "bash"),
            *_tf210_recipe(ctx),
            FixStep("Or keep this TensorFlow and train on the CPU.")]


def _cuda_recipe(ctx: FixContext, cuda: str | None, cudnn: str | None) -> list[FixStep]:
    """Install the CUDA/cuDNN pair a build wants, the way TF's own install guide does."""
    tf = ctx.tf_version
    cuda, cudnn = _version(cuda), _version(cudnn)
    if not ctx.windows and ((cuda or "").startswith("12") or (tf and minor_of(tf) >= (2, 14))):
        pin = f"=={tf[0]}.{tf[1]}.*" if tf else ""
        return [_program(ctx, "Since TF 2.14 pip installs the CUDA libraries itself:",
                         _pip(ctx, "install", f"tensorflow[and-cuda]{pin}"), shell="bash")]
    if not cuda:
        return [FixStep("Install the CUDA toolkit and cuDNN versions listed for your TensorFlow "
                        "release at https://www.tensorflow.org/install/source_windows#gpu (Windows)"
                        " or https://www.tensorflow.org/install/source#gpu (Linux).")]
    cudnn_spec = "8.1.0" if cudnn == "8.1" else cudnn
    conda = f"conda install -c conda-forge cudatoolkit={cuda} cudnn={cudnn_spec} -y"
    if ctx.windows:
        return [FixStep(f"Install CUDA {cuda} and cuDNN {cudnn} into the training env "
                        "(TensorFlow's documented conda route), from an Anaconda Prompt with the "
                        "env activated:", conda, "conda"),
                FixStep(f"Or install the CUDA {cuda} toolkit from NVIDIA's archive (toolkits "
                        f"install side by side) and cuDNN {cudnn}, and put both 'bin' folders on "
                        "PATH (C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\"
                        f"v{cuda}\\bin). Do not rename DLLs of another version.")]
    return [FixStep(f"Install CUDA {cuda} and cuDNN {cudnn} into the conda env and put its lib "
                    "folder on the library path (TensorFlow's documented route):",
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
        steps.append(FixStep(f"TensorFlow looked for {lib}"
                             + (f" (CUDA {cuda})." if cuda else ".")))
    if ctx.detail.get("unnamed"):
        steps.append(FixStep("Newer TensorFlow names the missing library only at verbose level; "
                             "rerun with:", "TF_CPP_MAX_VLOG_LEVEL=1 python your_script.py",
                             "bash"))
    steps.extend(_cuda_recipe(ctx, cuda, cudnn))
    steps.append(_verify(ctx))
    return steps


def _missing_cudnn(ctx: FixContext) -> list[FixStep]:
    cuda, cudnn = (_version(v) for v in _wanted_pair(ctx))
    lib = ctx.detail.get("library", "")
    steps = []
    if lib.startswith("zlibwapi"):
        steps.append(FixStep("cuDNN 8.3+ on Windows needs zlibwapi.dll (NVIDIA's cuDNN install "
                             "guide). Install the cuDNN TensorFlow was tested with instead, which "
                             "does not:", "conda install -c conda-forge cudnn=8.1.0 -y", "conda"))
    elif lib.startswith("cudnn_") and ctx.windows:
        steps.append(FixStep(f"{lib} is one of the DLLs cudnn64_8.dll loads at run time: the "
                             "whole cuDNN 'bin' folder must be on PATH, not only cudnn64_8.dll."))
    if not ctx.windows and ctx.tf_version and minor_of(ctx.tf_version) >= (2, 14):
        steps.extend(_cuda_recipe(ctx, cuda, cudnn))
    elif cudnn:
        spec = "8.1.0" if cudnn == "8.1" else cudnn
        steps.append(FixStep(f"Install cuDNN {cudnn} (for CUDA {cuda}) into the training env:",
                             f"conda install -c conda-forge cudnn={spec} -y", "conda"))
        steps.append(FixStep("Or download cuDNN from NVIDIA and copy its bin/include/lib folders "
                             "into the CUDA toolkit folder (or add its bin to PATH)."))
    else:
        steps.append(FixStep("Install the cuDNN major version your TensorFlow release lists "
                             "(https://www.tensorflow.org/install/source#gpu) and put its "
                             "library folder on the search path."))
    steps.append(_verify(ctx))
    return steps


def _mismatch(ctx: FixContext) -> list[FixStep]:
    cuda, cudnn = _wanted_pair(ctx)
    have = ctx.detail.get("installed")
    steps = []
    if cuda:
        steps.append(FixStep(
            f"This TensorFlow build wants CUDA {cuda}" + (f" / cuDNN {cudnn}" if cudnn else "")
            + (f", but CUDA {have} is what is installed" if have else "")
            + ". TensorFlow loads exact library versions; a newer toolkit does not replace the "
              "one it was built for. Never rename DLLs/.so files of another version."))
    steps.extend(_cuda_recipe(ctx, cuda, cudnn))
    steps.append(FixStep("Or install the TensorFlow release built for the CUDA you have (table: "
                         "https://www.tensorflow.org/install/source#gpu)."))
    steps.append(_verify(ctx))
    return steps


_MSVC_DLLS = ("msvcp140.dll", "msvcp140_1.dll", "vcruntime140.dll", "vcruntime140_1.dll")


def _msvc_check(ctx: FixContext) -> FixStep:
    return _program(ctx, "Check: 'where' prints the path of each runtime DLL it finds (one "
                    "missing = that runtime is not installed):", ["where", *_MSVC_DLLS],
                    shell="cmd")


def _msvc(ctx: FixContext) -> list[FixStep]:
    lib = ctx.detail.get("library")
    provides = f", which provides {lib}" if lib and kb.library_info(lib).kind == "msvc" else ""
    # The redistributable installs for the whole machine: an elevated (UAC) install.
    install = [FixStep(f"Install the latest Microsoft Visual C++ Redistributable (x64){provides}:",
                       "winget install --id Microsoft.VCRedist.2015+.x64 -e", "cmd", admin=True),
               FixStep(f"Or download and run {VC_REDIST_URL}. A copy of msvcp140.dll elsewhere "
                       "on PATH (Java, other apps) is usually too old to count.")]
    # A named DLL is the cause; an unnamed one ("DLL load failed") is checked first.
    return install if provides else [_msvc_check(ctx), *install]


def _avx_check(ctx: FixContext) -> FixStep:
    if ctx.windows:
        return _program(ctx, "Check whether the CPU has AVX (True = yes):",
                        [ctx.exe, "-c", "import ctypes; "
                         "print(bool(ctypes.windll.kernel32.IsProcessorFeaturePresent(39)))"],
                        shell="cmd")
    return _program(ctx, "Check whether the CPU has AVX (prints 'avx' if yes):",
                    ["grep", "-o", "-m1", "-w", "avx", "/proc/cpuinfo"], shell="bash")


def _no_avx(ctx: FixContext) -> list[FixStep]:
    return [_avx_check(ctx),
            FixStep("TensorFlow 1.6+ release binaries need AVX. Run on a CPU with AVX; inside a "
                    "VM expose the host CPU's features (Hyper-V: turn off processor "
                    "compatibility; QEMU: -cpu host). Otherwise use a community wheel built "
                    "without AVX or build TensorFlow from source.")]


def _python_unsupported(ctx: FixContext) -> list[FixStep]:
    row = kb.python_range_for(ctx.tf_version, ctx.platform) if ctx.tf_version else None
    steps = []
    if ctx.detail.get("bits") == 32:
        steps.append(FixStep("TensorFlow needs a 64-bit Python; install the 64-bit (x86-64) "
                             "build from python.org or use conda."))
    if row:
        newest = max(high for _, high in row.python)
        ver = f"{newest[0]}.{newest[1]}"
        pin = row.label.rsplit(".", 1)[0]
        steps.append(FixStep(f"TensorFlow {row.label} supports Python {row.python_text}. Create "
                             f"an env with Python {ver}:",
                             f"conda create -n tf python={ver} -y\nconda activate tf\n"
                             f"python -m pip install \"tensorflow=={pin}.*\"",
                             "conda"))
    else:
        newest = max(high for r in kb.build_configs() if r.status == "listed"
                     for _, high in r.python)
        ver = f"{newest[0]}.{newest[1]}"
        steps.append(FixStep(f"pip finds no TensorFlow wheel for this Python. Current TensorFlow "
                             f"supports 64-bit Python up to {ver}; create an env with a supported "
                             "one:", f"conda create -n tf python={ver} -y\nconda activate tf\n"
                             "python -m pip install tensorflow", "conda"))
    return steps


def _mixed(ctx: FixContext) -> list[FixStep]:
    numpy = ctx.detail.get("numpy")
    if numpy == "downgrade":
        return [_program(ctx, "This TensorFlow was built against NumPy 1.x; install a matching "
                         "NumPy:", _pip(ctx, "install", "numpy<2"))]
    if numpy == "upgrade":
        return [_program(ctx, "A module was built against a newer NumPy; upgrade NumPy:",
                         _pip(ctx, "install", "--upgrade", "numpy"))]
    if ctx.detail.get("protobuf"):
        return [_program(ctx, "protobuf is newer than this TensorFlow supports:",
                         _pip(ctx, "install", "protobuf<3.21"))]
    pin = f"=={ctx.tf_version[0]}.{ctx.tf_version[1]}.*" if ctx.tf_version else ""
    return [_program(ctx, "Uninstall every TensorFlow variant, then install exactly one:",
                     _pip(ctx, "uninstall", "-y", "tensorflow", "tensorflow-cpu", "tensorflow-gpu",
                          "tensorflow-intel", "tf-nightly", "tf-nightly-gpu", "keras"),
                     _pip(ctx, "install", f"tensorflow{pin}"))]


def _native_failed(ctx: FixContext) -> list[FixStep]:
    steps = []
    if ctx.windows or ctx.platform is None:
        steps.extend(_msvc(ctx)[:2])
    steps.append(_avx_check(ctx))
    steps.append(FixStep("Make sure the Python is 64-bit and in the range your TensorFlow "
                         "supports (https://www.tensorflow.org/install/source_windows#cpu)."))
    steps.append(_program(ctx, "Reinstall TensorFlow cleanly (one variant only):",
                          _pip(ctx, "install", "--force-reinstall", "--no-cache-dir",
                               "tensorflow")))
    steps.append(_program(ctx, "Let TensorDeck walk the DLL imports and name the missing file:",
                          ["tensordeck", "doctor", "--python", ctx.exe]))
    return steps


def _legacy_keras_pin(ctx: FixContext) -> str:
    tf = ctx.tf_version
    return f"tf-keras~={tf[0]}.{tf[1]}.0" if tf else "tf-keras"


def _keras3(ctx: FixContext) -> list[FixStep]:
    if ctx.detail.get("estimator"):
        return [_program(ctx, "tf.estimator was removed in TensorFlow 2.16. Pin an older "
                         "TensorFlow:", _pip(ctx, "install", "tensorflow<2.16")),
                FixStep("Or port the model to Keras / a custom training loop.")]
    tf_keras = _version(ctx.detail.get("tf_keras"))
    use_legacy = ([FixStep(f"tf-keras {tf_keras} (Keras 2) is already installed: tell "
                           "TensorFlow to use it (in TensorDeck: the job's \"env\").")]
                  if tf_keras else [_program(ctx, "Use Keras 2 (tf-keras) with this TensorFlow:",
                                             _pip(ctx, "install", _legacy_keras_pin(ctx)))])
    return [*use_legacy,
            _set_env(ctx, "TF_USE_LEGACY_KERAS", "1"),
            FixStep("Or replace model.fit with a custom training loop; with "
                    "ParameterServerStrategy use tf.distribute.coordinator.ClusterCoordinator.")]


def _nccl(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Choose a cross-device reduction that does not need NCCL:",
                    "strategy = tf.distribute.MirroredStrategy(\n"
                    "    cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())", "any"),
            FixStep("or tf.distribute.ReductionToOneDevice(); for MultiWorkerMirroredStrategy use "
                    "CommunicationImplementation.RING.")]


def _oom(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Reduce the batch size (per replica) or the model size."),
            _set_env(ctx, "TF_FORCE_GPU_ALLOW_GROWTH", "true"),
            _nvidia_smi(ctx, "See which other processes hold GPU memory (another training run, "
                        "a notebook):", _here(ctx))]


def _port(ctx: FixContext) -> list[FixStep]:
    # Only digits reach the shell lines below (a pasted log may say anything).
    port = _port_number(ctx.detail.get("port"))
    if ctx.windows:
        reserved = ["netsh", "interface", "ipv4", "show", "excludedportrange", "protocol=tcp"]
        who = f"netstat -ano | findstr :{port or 'PORT'}"
        return [FixStep("See who holds the port, and Windows' reserved ranges (Hyper-V/WSL "
                        "reserve ports that look free):",
                        f"{who}\n{' '.join(reserved)}", "cmd",
                        argv=(("cmd", "/d", "/c", who), tuple(reserved)) if port else ()),
                FixStep("Stop the leftover task (ps tasks never exit on their own) or give every "
                        "task a free port outside those ranges.")]
    who = f"ss -ltnp | grep :{port or 'PORT'}"
    return [FixStep("See who holds the port:", who, "bash",
                    argv=(("/bin/sh", "-c", who),) if port else ()),
            FixStep("Stop the leftover task (ps tasks never exit on their own) or give every task "
                    "its own free port; on one machine every task needs a different port.")]


def _conda_env(ctx: FixContext) -> list[FixStep]:
    env = "ENV"  # the name read from a pasted log, quoted; a placeholder when it cannot be
    if ctx.conda_env:
        with contextlib.suppress(UnsafeValue):
            env = shell_word(ctx.conda_env, shell_kind("conda", ctx.windows))
    steps = [FixStep("Start Python from the activated env (or let TensorDeck launch it: it adds "
                     "the env's library folders itself):",
                     f"conda activate {env}\npython your_script.py", "conda"),
             FixStep("Or without activating:", f"conda run -n {env} python your_script.py",
                     "conda")]
    if not ctx.windows:
        steps.append(FixStep("TensorFlow's conda recipe on Linux also needs the env's lib folder "
                             "on LD_LIBRARY_PATH at each activation:",
                             "mkdir -p $CONDA_PREFIX/etc/conda/activate.d\n"
                             "echo 'export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CONDA_PREFIX/lib/' > "
                             "$CONDA_PREFIX/etc/conda/activate.d/env_vars.sh", "bash"))
    steps.append(_verify(ctx))
    return steps


def _tf1(ctx: FixContext) -> list[FixStep]:
    script = ctx.detail.get("script", "script.py")
    stem = script[:-3] if script.endswith(".py") else script
    steps = [FixStep("Run TF1 code on TF2 through the compat module (top of the script):",
                     "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()", "any"),
             _program(ctx, "Or convert the script:",
                      ["tf_upgrade_v2", "--infile", script, "--outfile", f"{stem}_v2.py"])]
    removed = ctx.detail.get("removed") or ()
    steps[:0] = [FixStep(_REMOVED_MODULES[m]) for m in _REMOVED_MODULES if m in removed]
    return steps


#: Modules of TF 1.x that TF 2 removed (the compat module does not bring them back), and what
#: replaces them.
_REMOVED_MODULES = {
    "tensorflow.contrib": "tf.contrib (tensorflow.contrib) was removed in TensorFlow 2 and has no "
                          "TF2 module: replace each use (tf-slim, tensorflow-addons, core APIs) "
                          "or use TensorFlow 1.15 (Python 3.7 or older).",
    "tensorflow.examples": "tensorflow.examples (tutorials.mnist's input_data) was removed in "
                           "TensorFlow 2: load the data with "
                           "tf.keras.datasets.mnist.load_data() instead.",
}
REMOVED_MODULES = tuple(_REMOVED_MODULES)


def _peer(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Check that every task in the cluster spec is running and reachable from "
                    "this one (a task that exited or crashed leaves the others waiting):",
                    "Test-NetConnection HOST -Port PORT" if ctx.windows else "nc -vz HOST PORT",
                    "powershell" if ctx.windows else "bash"),
            FixStep("Allow the cluster ports through the firewall on every machine:",
                    "netsh advfirewall firewall add rule name=\"TensorFlow cluster\" dir=in "
                    "action=allow protocol=TCP localport=2222-2299" if ctx.windows
                    else "sudo ufw allow 2222:2299/tcp", _here(ctx), admin=True),
            FixStep("TF1 between-graph scripts: give each worker device_filters, so it does not "
                    "wait for other workers (which may already have finished):",
                    "config = tf.compat.v1.ConfigProto(device_filters=[\"/job:ps\", "
                    "\"/job:worker/task:%d\" % task_index])\n"
                    "# pass config=config to MonitoredTrainingSession / Session", "any")]


def _optional(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Nothing to do for training: TensorRT is only used for inference "
                    "optimisation and CUPTI only by the profiler.")]


def _cpu_build(ctx: FixContext) -> list[FixStep]:
    if ctx.platform == "macos":
        return [FixStep("TensorFlow has no CUDA on macOS (NVIDIA GPUs are not supported there "
                        "since 1.2). Apple-silicon and AMD GPUs: Apple's Metal plugin:",
                        "python -m pip install tensorflow-metal", "bash"),
                FixStep("For an NVIDIA GPU, train on a Linux or Windows machine (a LAN node).")]
    tf = ctx.tf_version
    if tf and minor_of(tf) < (2, 1):
        # Before 2.1 the GPU build was its own package; `tensorflow` was CPU-only.
        return [_program(ctx, f"TensorFlow {tf[0]}.{tf[1]}: the 'tensorflow' package is the CPU "
                         "build; the GPU build is 'tensorflow-gpu':",
                         _pip(ctx, "uninstall", "-y", "tensorflow"),
                         _pip(ctx, "install", f"tensorflow-gpu=={tf[0]}.{tf[1]}.*"))]
    if ctx.windows:
        return _windows_gpu_unsupported(ctx) if ctx.tf_version and not kb.windows_gpu_supported(
            ctx.tf_version) else _tf210_recipe(ctx)
    return [_program(ctx, "For GPU training install the GPU build:",
                     _pip(ctx, "install", "tensorflow[and-cuda]"), shell="bash")]


def _gpu_arch(ctx: FixContext) -> list[FixStep]:
    """A release whose build covers the GPU (``detail["capability"]``), else the CPU build."""
    from core.gpu.capability import capability_text

    capability = ctx.detail.get("capability")
    cc = f"compute capability {capability_text(capability)}" if capability else "this GPU"
    releases = kb.releases_running_on(capability, ctx.platform) if capability else []
    if releases and ctx.windows and releases[0] == kb.last_windows_gpu_release():
        return _tf210_recipe(ctx)
    if releases:
        tf = ".".join(map(str, releases[0]))
        return [_program(ctx, f"TensorFlow {tf}'s GPU build has code for {cc}:",
                         _pip(ctx, "install", f"tensorflow[and-cuda]=={tf}.*"), shell="bash")]
    tf = ".".join(map(str, minor_of(ctx.tf_version))) if ctx.tf_version else None
    return [_program(ctx, f"No TensorFlow release TensorDeck knows has GPU code for {cc}: train "
                     "on the CPU with the CPU build (or use a newer GPU):",
                     _pip(ctx, "uninstall", "-y", "tensorflow"),
                     _pip(ctx, "install", f"tensorflow-cpu=={tf}.*" if tf else "tensorflow-cpu"))]


def _pip_check(ctx: FixContext) -> FixStep:
    return _program(ctx, "List the installed packages whose versions conflict (pip names each "
                    "requirement that is not met):", _pip(ctx, "check"))


def _pip_failed(ctx: FixContext) -> list[FixStep]:
    why = ctx.detail.get("why")
    if why == "wheel":
        return [_program(ctx, "pip refused the wheel: it was built for another Python version, "
                         "bitness or OS. See which wheel tags this Python accepts (cp310 = "
                         "Python 3.10, win_amd64 = 64-bit Windows):",
                         _pip(ctx, "debug", "--verbose")),
                FixStep("Download the wheel whose name has one of those tags, or let pip choose: "
                        "pip install PACKAGE (no file name).")]
    if why == "build":
        return [FixStep("pip found no ready-made wheel for this Python and tried to compile the "
                        "package from source, which failed (a compiler or headers are missing). "
                        "Use a Python version the package publishes wheels for (TensorFlow "
                        "2.10: 3.7-3.10), or an older/newer release of the package that has "
                        "one.")]
    if why == "access":
        return [FixStep("A file is in use or not writable: close the Python programs and "
                        "notebooks using this environment, or install for your user only:",
                        "python -m pip install --user PACKAGE", _here(ctx))]
    if why == "long-path":
        return [FixStep("Windows refused a path longer than 260 characters. Enable long paths "
                        "(as administrator), then install again:",
                        "reg add HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem "
                        "/v LongPathsEnabled /t REG_DWORD /d 1 /f", "cmd", admin=True),
                FixStep("Or create the environment in a short folder (C:\\envs\\tf).")]
    if why == "network":
        return [FixStep("pip could not reach the package index: check the network, a proxy "
                        "(pip --proxy http://HOST:PORT) or PIP_INDEX_URL, then install again.")]
    # A resolver conflict: the requirements cannot all hold at once.
    return [FixStep("pip cannot satisfy every requirement at once (the lines above name the "
                    "packages whose ranges exclude each other). Install TensorFlow alone in a "
                    "fresh environment first, then add the other packages without pinning "
                    "versions, so pip picks ones that fit TensorFlow's:",
                    "python -m venv tf-env\n"
                    + ("tf-env\\Scripts\\python" if ctx.windows else "tf-env/bin/python")
                    + " -m pip install tensorflow", _here(ctx)),
            FixStep("Or relax the pins in requirements.txt that the message names.")]


#: What a known dependency failure needs, by distribution (the generic fix is pip check).
_DEPENDENCY_FIX = {
    "numpy": "NumPy 1.24 removed np.object / np.bool / np.int / np.float that TensorFlow before "
             "2.12 uses; NumPy 2 breaks modules built for NumPy 1:",
    "protobuf": "protobuf must be in the range this TensorFlow pins (TF 2.12+: 3.20.3 or newer; "
                "older TF: below 3.21):",
    "ml-dtypes": "ml_dtypes is pinned by TensorFlow (and by jax, which often installs another "
                 "version):",
    "h5py": "h5py's compiled part does not match its HDF5 library (often a conda h5py mixed with "
            "a pip one):",
}


def _dependency(ctx: FixContext) -> list[FixStep]:
    package = ctx.detail.get("package")
    steps = [_pip_check(ctx)]
    if package == "numpy" and ctx.detail.get("numpy") == "aliases":
        steps.append(_program(ctx, _DEPENDENCY_FIX["numpy"], _pip(ctx, "install", "numpy<1.24")))
        return steps
    known = _DEPENDENCY_FIX.get(package or "")
    spec = f"tensorflow=={ctx.tf_version[0]}.{ctx.tf_version[1]}.*" if ctx.tf_version else \
        "tensorflow"
    lead = (known + " r" if known else
            (f"{package} does not match what TensorFlow needs: r" if package else "R"))
    if package and re.fullmatch(r"[A-Za-z0-9_.-]+", package):
        steps.append(_program(ctx, lead + "einstall it at the version TensorFlow requires "
                              "(pip resolves it from TensorFlow's own requirements):",
                              _pip(ctx, "install", "--force-reinstall", spec, package)))
    else:
        steps.append(_program(ctx, lead + "einstall TensorFlow with its own requirements:",
                              _pip(ctx, "install", "--force-reinstall", spec)))
    return steps


def _unrecognized(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Read the quoted lines from the bottom up: the last exception names what "
                    "failed (a module, a file, a library), the lines before it where. Search for "
                    "that last line with your TensorFlow version."),
            FixStep("If it mentions a DLL, a .so file, CUDA or the GPU, let TensorDeck look at "
                    "the interpreter itself (it walks the native imports):",
                    "tensordeck doctor --python PATH", "any")]


def _no_error(ctx: FixContext) -> list[FixStep]:
    return [FixStep("Paste the whole output of the failing command, from the command line to its "
                    "last line: the traceback's last lines, or TensorFlow's W/E lines before it, "
                    "are what the doctor reads."),
            FixStep("Nothing printed but no GPU is used? Run this and paste its output:",
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
    "port-in-use": _port,
    "conda-env-not-activated": _conda_env,
    "tf1-api-on-tf2": _tf1,
    "peer-unreachable": _peer,
    "optional-library-missing": _optional,
    "cpu-only-build": _cpu_build,
    "gpu-arch-unsupported": _gpu_arch,
}
