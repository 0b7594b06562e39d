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
from core.findings import Finding, FixStep, Severity
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


_CATALOG: dict[str, tuple[Severity, str]] = {
    "no-nvidia-driver": ("error", "No working NVIDIA driver: TensorFlow cannot reach a GPU"),
    "driver-not-loaded": ("error", "The NVIDIA driver is installed but not loaded"),
    "driver-too-old": ("error", "The NVIDIA driver is too old for the CUDA this TensorFlow uses"),
    "tf-windows-gpu-unsupported": (
        "error", "TensorFlow 2.11+ has no GPU support on native Windows (the last was 2.10)"),
    "missing-cuda-runtime": ("error", "The CUDA runtime libraries TensorFlow needs are not found"),
    "missing-cudnn": ("error", "The cuDNN library TensorFlow needs is not found"),
    "cuda-version-mismatch": (
        "error", "The installed CUDA/cuDNN version is not the one this TensorFlow build wants"),
    "missing-msvc-runtime": (
        "error", "The Microsoft Visual C++ runtime (msvcp140.dll, msvcp140_1.dll, "
                 "vcruntime140_1.dll) is missing"),
    "cpu-no-avx": ("error", "The CPU lacks AVX, which TensorFlow binaries (1.6+) require"),
    "python-unsupported": (
        "error", "This Python version or architecture is not supported by this TensorFlow"),
    "mixed-tf-packages": (
        "error", "Conflicting TensorFlow-related packages are installed in one environment"),
    "native-runtime-load-failed": ("error", "TensorFlow's native runtime failed to load"),
    "keras3-strategy-unsupported": (
        "error", "Keras 3 (TF 2.16+) does not support what this script uses"),
    "nccl-unavailable": ("error", "NCCL all-reduce is not available (always so on Windows)"),
    "gpu-out-of-memory": ("error", "The GPU ran out of memory"),
    "port-in-use": ("error", "A cluster port is already in use or reserved"),
    "conda-env-not-activated": (
        "error", "The conda env's CUDA/cuDNN libraries are not on the search path "
                 "(env not activated)"),
    "tf1-api-on-tf2": ("error", "The script uses TensorFlow 1.x APIs that TensorFlow 2 removed"),
    "peer-unreachable": ("error", "A cluster task cannot reach another task"),
    "optional-library-missing": (
        "info", "An optional GPU library (TensorRT / CUPTI) is missing: harmless for training"),
    "cpu-only-build": ("info", "This TensorFlow is a CPU-only build; training runs on CPU"),
    "gpu-ready": ("info", "TensorFlow sees the GPU(s)"),
    "probe-failed": ("warning", "The interpreter could not be probed"),
    "tf-not-installed": ("info", "TensorFlow is not installed in this interpreter"),
    "script-not-parsed": ("warning", "The script could not be read as Python 3 (not scanned)"),
}


def make_finding(fid: str, evidence: str | list[str], ctx: FixContext | None = None, *,
                 title: str | None = None, severity: Severity | None = None) -> Finding:
    """A Finding of catalogue id ``fid`` with the fix for ``ctx``."""
    default_severity, default_title = _CATALOG[fid]
    ctx = ctx or FixContext()
    if isinstance(evidence, list):
        evidence = "\n".join(dict.fromkeys(line[:400] for line in evidence))
    steps = _STEPS[fid](ctx) if fid in _STEPS else ()
    return Finding(fid, severity or default_severity, title or default_title, evidence,
                   tuple(steps))


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


def _driver_steps(ctx: FixContext) -> list[FixStep]:
    if ctx.platform == "wsl":
        return [_nvidia_smi(ctx, "WSL2 uses the Windows NVIDIA driver: install or update it on "
                            f"Windows ({DRIVER_URL}); do not install a Linux driver inside WSL. "
                            "Then, in WSL:", "bash")]
    if ctx.windows:
        return [FixStep(f"Install the NVIDIA display driver for your GPU from {DRIVER_URL} "
                        "(it provides nvcuda.dll and nvml.dll in System32), reboot, then check:",
                        "nvidia-smi", "cmd", reboot=True)]
    return [FixStep("Install the NVIDIA driver (Ubuntu: the recommended one), reboot, then "
                    "check:", "sudo ubuntu-drivers install\nsudo reboot\nnvidia-smi", "bash",
                    admin=True, reboot=True)]


def _no_driver(ctx: FixContext) -> list[FixStep]:
    return [*_driver_steps(ctx),
            FixStep("If this machine has no NVIDIA GPU, nothing is broken: TensorFlow trains on "
                    "the CPU.")]


def _driver_not_loaded(ctx: FixContext) -> list[FixStep]:
    if ctx.windows:
        return [FixStep("Reinstall the NVIDIA driver (clean install) and reboot; check Device "
                        "Manager that the GPU has no warning sign. Then:", "nvidia-smi", "cmd",
                        reboot=True)]
    return [FixStep("The kernel module does not match or is not loaded (usual after a driver or "
                    "kernel update): reboot, or load it, then check:",
                    "sudo modprobe nvidia\nnvidia-smi", "bash", admin=True),
            FixStep("If it still fails, reinstall the driver for the running kernel:",
                    "sudo ubuntu-drivers install", "bash", admin=True)]


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


def _msvc(ctx: FixContext) -> list[FixStep]:
    lib = ctx.detail.get("library")
    provides = f", which provides {lib}" if lib and kb.library_info(lib).kind == "msvc" else ""
    # The redistributable installs for the whole machine: an elevated (UAC) install.
    return [FixStep(f"Install the latest Microsoft Visual C++ Redistributable (x64){provides}:",
                    "winget install --id Microsoft.VCRedist.2015+.x64 -e", "cmd", admin=True),
            FixStep(f"Or download and run {VC_REDIST_URL}. A copy of msvcp140.dll elsewhere on "
                    "PATH (Java, other apps) is usually too old to count.")]


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
        steps.extend(_msvc(ctx)[:1])
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
    return [_program(ctx, "Use Keras 2 (tf-keras) with this TensorFlow:",
                     _pip(ctx, "install", _legacy_keras_pin(ctx))),
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
    if ctx.detail.get("contrib"):
        steps.insert(0, FixStep("tf.contrib has no TF2 equivalent module: replace each use "
                                "(tf-slim, tensorflow-addons, core APIs) or use TensorFlow 1.15 "
                                "(Python 3.7 or older)."))
    return steps


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
    if ctx.detail.get("wants_gpu") is False:
        return []
    if ctx.windows:
        return _windows_gpu_unsupported(ctx) if ctx.tf_version and not kb.windows_gpu_supported(
            ctx.tf_version) else _tf210_recipe(ctx)
    return [_program(ctx, "For GPU training install the GPU build:",
                     _pip(ctx, "install", "tensorflow[and-cuda]"), shell="bash")]


_STEPS: dict[str, Callable[[FixContext], list[FixStep]]] = {
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
}
