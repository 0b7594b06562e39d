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
    body = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(f"^{body}$", re.DOTALL)


_PATTERNS = [(message_id, _pattern(message.en)) for message_id, message in CATALOGUE.items()]


def recognise(text: str) -> tuple[str, dict[str, str]] | None:
    """(message id, parameters) of a catalogue message said in English, else None."""
    for message_id, pattern in _PATTERNS:
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
