"""What TensorDeck says to people, by message id: an English template and its Simplified
Chinese per id, with named parameters, for the core (which never imports Qt) and both faces.

- The command line follows the system's language: ``TENSORDECK_LANG``, then ``LANGUAGE``,
  ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` (POSIX), then the user's UI language (Windows).
- The window sets the language it shows (:func:`set_language`, from ``gui.i18n``).
- Files keep English (``summary.json``'s reasons, logs): :func:`translate_text` recognises a
  catalogue message in its English text and says it in the chosen language, so that a run
  folder written before a language switch, or by the command line, reads in the window's.

Only the standard library, and nothing slow: ``tensordeck --help`` imports this module.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from functools import cache
from typing import NamedTuple

LANGUAGES = ("en", "zh_CN")


class Message(NamedTuple):
    en: str
    zh_CN: str


CATALOGUE: dict[str, Message] = {
    # --- the command line (core/cli.py) ---------------------------------------------------------
    "cli.description": Message(
        "Launch, watch and diagnose TensorFlow training: one GPU, all GPUs of a machine, or a "
        "parameter-server / worker cluster.",
        "启动、监视和诊断 TensorFlow 训练：单个 GPU、一台机器的所有 GPU，"
        "或参数服务器 / worker 集群。"),
    "cli.examples": Message("examples:", "示例："),
    "cli.run": Message("run the job described by config FILE", "运行配置文件 FILE 描述的作业"),
    "cli.run_command": Message("run a job (same as --run FILE)", "运行作业（同 --run FILE）"),
    "cli.validate": Message("check a config file; exit 2 with every problem found",
                            "检查配置文件；发现问题时列出全部问题并以退出码 2 结束"),
    "cli.schema": Message("print the JSON Schema of config files", "打印配置文件的 JSON Schema"),
    "cli.doctor": Message("diagnose GPUs, drivers and TensorFlow installs",
                          "诊断 GPU、驱动和 TensorFlow 安装"),
    "cli.doctor.python": Message(
        "training interpreter to check (repeatable; default: all found)",
        "要检查的训练解释器（可重复；默认：找到的全部）"),
    "cli.doctor.explain": Message(
        "diagnose a captured error output instead ('-' reads stdin)",
        "改为诊断保存下来的错误输出（'-' 读取标准输入）"),
    "cli.doctor.platform": Message("with --explain: where the output came from, when known",
                                   "与 --explain 一起：输出来自哪个平台（如已知）"),
    "cli.doctor.tf_version": Message("with --explain: TensorFlow version, when known",
                                     "与 --explain 一起：TensorFlow 版本（如已知）"),
    "cli.doctor.no_import": Message("skip the 'import tensorflow' probe (fast)",
                                    "跳过 'import tensorflow' 探测（较快）"),
    "cli.json": Message("machine-readable output", "机器可读的输出"),
    "cli.gpus": Message("list NVIDIA GPUs (NVML)", "列出 NVIDIA GPU（NVML）"),
    "cli.gpus.watch": Message("refresh every second until Ctrl+C", "每秒刷新，直到按 Ctrl+C"),
    "cli.export": Message(
        "write the job as a Kubeflow TFJob, or as command lines to start by hand",
        "把作业导出为 Kubeflow TFJob，或导出为手动启动用的命令行"),
    "cli.export.kubeflow": Message(
        "write a TFJob manifest (YAML; JSON if OUT ends in .json; - for stdout)",
        "写出 TFJob 清单（YAML；OUT 以 .json 结尾时为 JSON；- 表示标准输出）"),
    "cli.export.commands": Message(
        "write the sh / cmd / PowerShell lines that start each task, per machine "
        "(Markdown; - for stdout)",
        "按机器写出启动每个任务的 sh / cmd / PowerShell 命令（Markdown；- 表示标准输出）"),
    "cli.export.image": Message(
        "container image for the TFJob (default: the placeholder REPLACE_WITH_YOUR_IMAGE)",
        "TFJob 使用的容器镜像（默认：占位符 REPLACE_WITH_YOUR_IMAGE）"),
    "cli.preflight": Message(
        "check a job's machines before a run: SSH, TensorFlow, GPUs, ports, firewalls",
        "运行前检查作业的各台机器：SSH、TensorFlow、GPU、端口、防火墙"),
    "cli.preflight.no_import": Message(
        "read TensorFlow's version from its files instead of importing it (fast)",
        "从文件读取 TensorFlow 版本而不导入它（较快）"),
    "cli.trust": Message("trust a node's SSH host key (adds it to known_hosts)",
                         "信任节点的 SSH 主机密钥（加入 known_hosts）"),
    "cli.trust.yes": Message("do not ask for confirmation", "不再询问确认"),
    "cli.login": Message("store a node's SSH password in the system keyring",
                         "把节点的 SSH 密码存入系统密钥环"),
    "cli.login.file": Message("the config that names the node", "指明该节点的配置文件"),
    "cli.login.stdin": Message("read the password from stdin", "从标准输入读取密码"),
    "cli.env": Message("make a TensorFlow environment that works on this machine",
                       "创建一个能在本机运行的 TensorFlow 环境"),
    "cli.env.create": Message(
        "create: plan, confirm, build, verify, and add it to the training interpreters",
        "create：制定计划、确认、构建、验证，并加入训练解释器列表"),
    "cli.env.path": Message("where (default: TensorDeck's data folder)",
                            "位置（默认：TensorDeck 的数据文件夹）"),
    "cli.env.cpu": Message("the CPU build, even with an NVIDIA GPU",
                           "使用 CPU 版本，即使有 NVIDIA GPU"),
    "cli.env.python": Message("the Python to base a venv on", "创建 venv 所基于的 Python"),
    "cli.env.yes": Message("build without asking", "不询问，直接构建"),
    "cli.env.dry_run": Message("show the plan; build nothing", "只显示计划；不构建任何东西"),
    "cli.gui": Message("open the window (also: tensordeck with no arguments, or tensordeck FILE)",
                       "打开窗口（也可以：不带参数运行 tensordeck，或 tensordeck FILE）"),
    "cli.gui.file": Message("config file to open", "要打开的配置文件"),
    "cli.gui.no_wizard": Message("do not open the first-start wizard", "不打开首次启动向导"),
    "cli.run_dir": Message("write the run folder here", "把运行文件夹写到这里"),
    "cli.dry_run": Message("print each task's command and environment; start nothing",
                           "打印每个任务的命令和环境变量；不启动任何进程"),
    "cli.no_doctor": Message("start even if the doctor's pre-run checks find an error",
                             "即使诊断的运行前检查发现错误也启动"),
    "cli.internal": Message("internal: started by TensorDeck itself",
                            "内部命令：由 TensorDeck 自己启动"),
    "cli.run_and_command": Message("--run FILE cannot be combined with a command",
                                   "--run FILE 不能与其他命令同时使用"),
    "cli.no_qt": Message(
        'tensordeck: the window needs PySide6: pip install "tensordeck[gui]". '
        "Command line help: tensordeck --help",
        'tensordeck：窗口需要 PySide6：pip install "tensordeck[gui]"。'
        "命令行帮助：tensordeck --help"),
    # --- how a run ended (core.supervisor's reasons, kept in summary.json) ---------------------
    "run.completed": Message("completed", "已完成"),
    "run.interrupted": Message("interrupted", "已中断"),
    "run.stopped_from_window": Message("stopped from the window", "已从窗口停止"),
    "run.task_exited": Message("{task} exited with code {code}", "{task} 已退出，退出码 {code}"),
    # --- what an interpreter is (core.interpreters.discover's kinds) ---------------------------
    "kind.current": Message("current", "当前"),
    "kind.user": Message("user", "用户指定"),
    "kind.conda": Message("conda", "conda"),
    "kind.venv": Message("venv", "venv"),
    "kind.py-launcher": Message("py-launcher", "py 启动器"),
    "kind.path": Message("path", "PATH 中"),
    # --- an interpreter that is not a Python (core.interpreters.probe.interpreter_problem) -----
    "python.not_python": Message(
        "{python} does not run as a Python interpreter ({why}); give the path of python(.exe) "
        "in the training environment",
        "{python} 不能作为 Python 解释器运行（{why}）；请给出训练环境中 python(.exe) 的路径"),
    "python.hangs": Message(
        "{python} did not answer in {seconds} s (killed): it hangs, or is not a Python; give "
        "the path of python(.exe) in the training environment",
        "{python} 在 {seconds} 秒内没有响应（已终止）：它卡住了，或者不是 Python；请给出训练环境中 "
        "python(.exe) 的路径"),
    # --- the doctor's findings: default titles (core/doctor/fixes.py, "finding.<id>") -----------
    "finding.no-nvidia-driver": Message(
        "No working NVIDIA driver: TensorFlow cannot reach a GPU",
        "没有可用的 NVIDIA 驱动：TensorFlow 无法使用 GPU"),
    "finding.driver-not-loaded": Message(
        "The NVIDIA driver is installed but not loaded", "NVIDIA 驱动已安装，但没有加载"),
    "finding.driver-too-old": Message(
        "The NVIDIA driver is too old for the CUDA this TensorFlow uses",
        "NVIDIA 驱动太旧，不支持此 TensorFlow 所用的 CUDA"),
    "finding.tf-windows-gpu-unsupported": Message(
        "TensorFlow 2.11+ has no GPU support on native Windows (the last was 2.10)",
        "TensorFlow 2.11 及以上版本在原生 Windows 上不支持 GPU（最后支持的是 2.10）"),
    "finding.missing-cuda-runtime": Message(
        "The CUDA runtime libraries TensorFlow needs are not found",
        "找不到 TensorFlow 需要的 CUDA 运行库"),
    "finding.missing-cudnn": Message(
        "The cuDNN library TensorFlow needs is not found", "找不到 TensorFlow 需要的 cuDNN 库"),
    "finding.cuda-version-mismatch": Message(
        "The installed CUDA/cuDNN version is not the one this TensorFlow build wants",
        "已安装的 CUDA/cuDNN 版本不是此 TensorFlow 版本所要求的"),
    "finding.missing-msvc-runtime": Message(
        "The Microsoft Visual C++ runtime (msvcp140.dll, msvcp140_1.dll, vcruntime140_1.dll) "
        "is missing",
        "缺少 Microsoft Visual C++ 运行库（msvcp140.dll、msvcp140_1.dll、vcruntime140_1.dll）"),
    "finding.cpu-no-avx": Message(
        "The CPU lacks AVX, which TensorFlow binaries (1.6+) require",
        "CPU 不支持 AVX，而 TensorFlow 的二进制版本（1.6 及以上）需要它"),
    "finding.python-unsupported": Message(
        "This Python version or architecture is not supported by this TensorFlow",
        "此 TensorFlow 不支持这个 Python 版本或架构"),
    "finding.mixed-tf-packages": Message(
        "Conflicting TensorFlow-related packages are installed in one environment",
        "同一环境中安装了相互冲突的 TensorFlow 相关包"),
    "finding.native-runtime-load-failed": Message(
        "TensorFlow's native runtime failed to load", "TensorFlow 的原生运行时加载失败"),
    "finding.keras3-strategy-unsupported": Message(
        "Keras 3 (TF 2.16+) does not support what this script uses",
        "Keras 3（TF 2.16 及以上）不支持此脚本所用的功能"),
    "finding.nccl-unavailable": Message(
        "NCCL all-reduce is not available (always so on Windows)",
        "NCCL all-reduce 不可用（在 Windows 上总是如此）"),
    "finding.gpu-out-of-memory": Message("The GPU ran out of memory", "GPU 显存不足"),
    "finding.port-in-use": Message(
        "A cluster port is already in use or reserved", "集群端口已被占用或被系统保留"),
    "finding.conda-env-not-activated": Message(
        "The conda env's CUDA/cuDNN libraries are not on the search path (env not activated)",
        "conda 环境中的 CUDA/cuDNN 库不在搜索路径上（环境未激活）"),
    "finding.tf1-api-on-tf2": Message(
        "The script uses TensorFlow 1.x APIs that TensorFlow 2 removed",
        "脚本使用了 TensorFlow 2 已移除的 TensorFlow 1.x API"),
    "finding.peer-unreachable": Message(
        "A cluster task cannot reach another task", "集群中的一个任务无法连接另一个任务"),
    "finding.optional-library-missing": Message(
        "An optional GPU library (TensorRT / CUPTI) is missing: harmless for training",
        "缺少可选的 GPU 库（TensorRT / CUPTI）：不影响训练"),
    "finding.gpu-arch-unsupported": Message(
        "This TensorFlow build has no code for this GPU's compute capability: it trains on "
        "the CPU",
        "此 TensorFlow 版本没有针对这块 GPU 计算能力的代码：训练会在 CPU 上进行"),
    "finding.cpu-only-build": Message(
        "This TensorFlow is a CPU-only build; training runs on CPU",
        "此 TensorFlow 是仅 CPU 版本；训练在 CPU 上进行"),
    "finding.probe-failed": Message(
        "The interpreter could not be probed", "无法探测该解释器"),
    "finding.tf-not-installed": Message(
        "TensorFlow is not installed in this interpreter", "此解释器中没有安装 TensorFlow"),
    "finding.script-not-parsed": Message(
        "The script could not be read as Python 3 (not scanned)",
        "无法把脚本读作 Python 3 代码（未扫描）"),
    "finding.pip-install-failed": Message("pip could not install a package", "pip 无法安装某个包"),
    "finding.dependency-version-conflict": Message(
        "A package TensorFlow depends on has a version this TensorFlow cannot use",
        "TensorFlow 依赖的某个包的版本不能与此 TensorFlow 一起使用"),
    "finding.unrecognized-error": Message(
        "An error TensorDeck does not know: the lines below are the ones that matter",
        "TensorDeck 不认识的错误：下面这几行是关键"),
    "finding.no-error-found": Message(
        "This output holds no error message", "这段输出中没有错误信息"),
    # --- the doctor's findings: titles the rules give (core/doctor/explain.py and others) -------
    "finding.no-nvidia-driver.no-device": Message(
        "CUDA finds no GPU: no NVIDIA driver, or the GPU is hidden (CUDA_VISIBLE_DEVICES)",
        "CUDA 找不到 GPU：没有 NVIDIA 驱动，或 GPU 被隐藏了（CUDA_VISIBLE_DEVICES）"),
    "finding.no-nvidia-driver.library": Message(
        "{library} (the NVIDIA driver's library) is not found: no NVIDIA driver installed",
        "找不到 {library}（NVIDIA 驱动的库）：没有安装 NVIDIA 驱动"),
    "finding.no-nvidia-driver.cpu-training": Message(
        "No NVIDIA driver found: GPU training is not possible here (CPU training is)",
        "未找到 NVIDIA 驱动：这里无法用 GPU 训练（可以用 CPU 训练）"),
    "finding.driver-not-loaded.error": Message(
        "The NVIDIA driver answered with an error", "NVIDIA 驱动返回了错误"),
    "finding.gpu-out-of-memory.cudnn-init": Message(
        "cuDNN/cuBLAS failed to initialise: usually the GPU memory is already taken (or a cuDNN "
        "version problem)",
        "cuDNN/cuBLAS 初始化失败：通常是 GPU 显存已被占用（也可能是 cuDNN 版本问题）"),
    "finding.cpu-no-avx.illegal-instruction": Message(
        "The process died of an illegal instruction: a CPU without AVX",
        "进程因非法指令而终止：CPU 不支持 AVX"),
    "finding.python-unsupported.no-wheel": Message(
        "pip finds no TensorFlow for this Python (too new, too old, or 32-bit)",
        "pip 找不到适用于此 Python 的 TensorFlow（版本太新、太旧，或是 32 位）"),
    "finding.python-unsupported.bitness": Message(
        "A 32-bit / 64-bit mismatch: TensorFlow needs a 64-bit Python",
        "32 位 / 64 位不匹配：TensorFlow 需要 64 位 Python"),
    "finding.mixed-tf-packages.keras": Message(
        "TensorFlow and Keras versions do not match", "TensorFlow 与 Keras 的版本不匹配"),
    "finding.mixed-tf-packages.procedure": Message(
        "A DLL of another version is loaded in its place (procedure not found)",
        "加载了另一个版本的 DLL 来代替它（找不到过程）"),
    "finding.mixed-tf-packages.requires": Message(
        "Package versions conflict with what TensorFlow requires",
        "包的版本与 TensorFlow 的要求冲突"),
    "finding.mixed-tf-packages.numpy-api": Message(
        "NumPy does not match the version TensorFlow was built against",
        "NumPy 与构建 TensorFlow 时所用的版本不匹配"),
    "finding.mixed-tf-packages.one-version-twice": Message(
        "Two TensorFlow distributions of one version share one tensorflow folder: keep one",
        "同一版本的两个 TensorFlow 发行包共用一个 tensorflow 文件夹：只保留一个"),
    "finding.mixed-tf-packages.keras-minor": Message(
        "keras does not match TensorFlow's minor version", "keras 与 TensorFlow 的次版本号不一致"),
    "finding.mixed-tf-packages.tf-keras-minor": Message(
        "tf-keras does not match TensorFlow's minor version",
        "tf-keras 与 TensorFlow 的次版本号不一致"),
    "finding.tf-windows-gpu-unsupported.package-removed": Message(
        "The tensorflow-gpu package is gone from PyPI (GPU on native Windows ended at 2.10)",
        "tensorflow-gpu 包已从 PyPI 移除（原生 Windows 的 GPU 支持止于 2.10）"),
    "finding.keras3-strategy-unsupported.estimator": Message(
        "tf.estimator is gone: TensorFlow 2.16+ (Keras 3) removed it",
        "tf.estimator 已不存在：TensorFlow 2.16 及以上（Keras 3）移除了它"),
    "finding.keras3-strategy-unsupported.per-replica": Message(
        "Keras 3 model.fit cannot run under this tf.distribute strategy",
        "Keras 3 的 model.fit 不能在这个 tf.distribute 策略下运行"),
    "finding.keras3-strategy-unsupported.ps-strategy": Message(
        "Keras 3 model.fit does not support ParameterServerStrategy",
        "Keras 3 的 model.fit 不支持 ParameterServerStrategy"),
    "finding.keras3-strategy-unsupported.mixed-keras": Message(
        "Keras 3 objects mixed with TF/Keras 2 code", "Keras 3 对象与 TF/Keras 2 代码混用"),
    "finding.keras3-strategy-unsupported.script-estimator": Message(
        "{script} uses tf.estimator, removed in TensorFlow 2.16",
        "{script} 使用了 tf.estimator，它已在 TensorFlow 2.16 中移除"),
    "finding.keras3-strategy-unsupported.script-fit": Message(
        "Keras 3 model.fit under {strategy} fails on TensorFlow {tf}",
        "在 TensorFlow {tf} 上，{strategy} 下的 Keras 3 model.fit 会失败"),
    "finding.port-in-use.reserved": Message(
        "The port lies in a range Windows reserved (Hyper-V / WSL): it cannot be bound",
        "该端口位于 Windows 保留的范围内（Hyper-V / WSL）：无法绑定"),
    "finding.peer-unreachable.waiting": Message(
        "A task is waiting for another task of the cluster that never answers",
        "一个任务在等待集群中另一个始终没有响应的任务"),
    "finding.missing-msvc-runtime.named-one": Message(
        "{libraries} is not found: the Microsoft Visual C++ runtime is missing or too old",
        "找不到 {libraries}：缺少 Microsoft Visual C++ 运行库，或版本太旧"),
    "finding.missing-msvc-runtime.named-many": Message(
        "{libraries} are not found: the Microsoft Visual C++ runtime is missing or too old",
        "找不到 {libraries}：缺少 Microsoft Visual C++ 运行库，或版本太旧"),
    "finding.missing-msvc-runtime.unnamed": Message(
        "A DLL that TensorFlow's native module imports is not found: most often the Microsoft "
        "Visual C++ runtime (msvcp140.dll, msvcp140_1.dll, vcruntime140_1.dll)",
        "找不到 TensorFlow 原生模块导入的某个 DLL：最常见的是 Microsoft Visual C++ 运行库"
        "（msvcp140.dll、msvcp140_1.dll、vcruntime140_1.dll）"),
    "finding.cuda-version-mismatch.unofficial": Message(
        "This TensorFlow build wants CUDA {wanted}, not the CUDA {official} its official "
        "release uses",
        "此 TensorFlow 版本要求 CUDA {wanted}，而不是其官方版本所用的 CUDA {official}"),
    "finding.cpu-only-build.macos": Message(
        "TensorFlow has no CUDA GPU support on macOS: it runs on the CPU (or Apple's Metal "
        "plugin)",
        "TensorFlow 在 macOS 上不支持 CUDA GPU：它在 CPU 上运行（或使用 Apple 的 Metal 插件）"),
    "finding.cpu-only-build.tensorflow-cpu": Message(
        "tensorflow-cpu is the CPU-only build: it never lists a GPU",
        "tensorflow-cpu 是仅 CPU 版本：它永远不会列出 GPU"),
    "finding.cpu-only-build.before-2.1": Message(
        "Before TensorFlow 2.1 the 'tensorflow' package was CPU-only (the GPU build was "
        "'tensorflow-gpu')",
        "TensorFlow 2.1 之前，'tensorflow' 包只支持 CPU（GPU 版本是 'tensorflow-gpu'）"),
    "finding.cpu-only-build.not-cuda": Message(
        "This TensorFlow is a CPU-only build (is_built_with_cuda() is False): install the GPU "
        "build",
        "此 TensorFlow 是仅 CPU 版本（is_built_with_cuda() 为 False）：请安装 GPU 版本"),
    "finding.cpu-only-build.gpus-present": Message(
        "TensorFlow {tf} is a CPU-only build: trains on the CPU, though this machine has {n} "
        "NVIDIA GPU(s)",
        "TensorFlow {tf} 是仅 CPU 版本：会在 CPU 上训练，尽管这台机器有 {n} 块 NVIDIA GPU"),
    "finding.tf1-api-on-tf2.removed-module": Message(
        "{module} was removed in TensorFlow 2 (a TF1 script)",
        "{module} 已在 TensorFlow 2 中移除（这是 TF1 脚本）"),
    "finding.tf1-api-on-tf2.unknown-attribute": Message(
        "tf.{name} does not exist in this TensorFlow (a TF1 API, or a file named tensorflow.py "
        "shadowing the package)",
        "此 TensorFlow 中没有 tf.{name}（它是 TF1 API，或者有一个名为 tensorflow.py 的文件遮蔽了"
        "这个包）"),
    "finding.tf1-api-on-tf2.script": Message(
        "{script} uses TF1 APIs that TensorFlow {tf} removed",
        "{script} 使用了 TensorFlow {tf} 已移除的 TF1 API"),
    "finding.tf1-api-on-tf2.script-modules": Message(
        "{script} uses TF1 modules ({modules}) and APIs that TensorFlow {tf} removed",
        "{script} 使用了 TensorFlow {tf} 已移除的 TF1 模块（{modules}）和 API"),
    "finding.pip-install-failed.network": Message(
        "pip cannot reach the package index", "pip 无法连接到包索引"),
    "finding.dependency-version-conflict.dll": Message(
        "{package}'s compiled part fails to load: {package} does not match its libraries or "
        "this TensorFlow",
        "{package} 的编译部分加载失败：{package} 与它的库或此 TensorFlow 不匹配"),
    "finding.dependency-version-conflict.package": Message(
        "{package} does not have a version this TensorFlow works with",
        "{package} 的版本不能与此 TensorFlow 一起工作"),
    "finding.gpu-arch-unsupported.gpu": Message(
        "TensorFlow {tf}'s GPU build has no code for the {gpu} (compute capability "
        "{capability})",
        "TensorFlow {tf} 的 GPU 版本没有针对 {gpu}（计算能力 {capability}）的代码"),
    "finding.probe-failed.hung": Message(
        "import tensorflow hung (killed at the timeout)",
        "import tensorflow 卡住了（超时后已终止）"),
    "finding.prerun.no-gpu": Message(
        "GPUs requested, but TensorFlow {tf} in this interpreter sees none",
        "作业请求了 GPU，但此解释器中的 TensorFlow {tf} 一块也看不到"),
    "finding.library-not-found": Message(
        "{library} is not found (needed by {needed_by})",
        "找不到 {library}（{needed_by} 需要它）"),
    "finding.library-wrong-arch": Message(
        "{library} is only present for another CPU architecture (needed by {needed_by})",
        "{library} 只有其他 CPU 架构的版本（{needed_by} 需要它）"),
}

_chosen: str | None = None


def set_language(language: str | None) -> None:
    """The language to speak from now on (one of LANGUAGES); None: the system's."""
    global _chosen
    _chosen = language if language in LANGUAGES else None


def system_language(environ: Mapping[str, str] = os.environ,
                    platform: str = sys.platform) -> str:
    """The supported language closest to the system's: zh_CN for any Chinese, else en."""
    for name in ("TENSORDECK_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").split(":")[0]
        if value:  # the first one set decides, as gettext does
            return "zh_CN" if value.lower().startswith("zh") else "en"
    if platform.startswith("win"):
        import ctypes

        lang_id = ctypes.windll.kernel32.GetUserDefaultUILanguage()  # type: ignore[attr-defined]
        return "zh_CN" if lang_id & 0x3FF == 0x04 else "en"  # LANG_CHINESE, any sublanguage
    return "en"


def language() -> str:
    return _chosen or system_language()


def tr(message_id: str, /, language_code: str | None = None, **params: object) -> str:
    """Message ``message_id`` in ``language_code`` (default: :func:`language`), its
    ``{name}`` fields filled from ``params``."""
    message = CATALOGUE[message_id]
    template = getattr(message, language_code or language(), message.en)
    return template.format(**params) if params else template


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)  # literal, name, literal, name ...
    body, named = [], set()
    for i, part in enumerate(parts):
        if i % 2 == 0:
            body.append(re.escape(part))
        else:  # a name said twice is the same value twice
            body.append(f"(?P={part})" if part in named else f"(?P<{part}>.+?)")
            named.add(part)
    return re.compile(f"^{''.join(body)}$", re.DOTALL)


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Compiled on first use: ``tensordeck --help`` and a run's launch never need them."""
    return [(message_id, _pattern(message.en)) for message_id, message in CATALOGUE.items()]


def recognise(text: str) -> tuple[str, dict[str, str]] | None:
    """(message id, parameters) of a catalogue message said in English, else None."""
    for message_id, pattern in _patterns():
        if match := pattern.match(text):
            return message_id, match.groupdict()
    return None


def translate_text(text: str, language_code: str | None = None) -> str:
    """``text`` in ``language_code`` when it is a catalogue message in English (a reason read
    from a run folder, a problem core reported), else ``text`` as it is."""
    found = recognise(text)
    if found is None:
        return text
    message_id, params = found
    return tr(message_id, language_code, **params)
