"""What TensorDeck says to people, by message id: an English template and its Simplified
Chinese per id, with named parameters, for the core (which never imports Qt) and both faces.

- The command line follows the system's language: ``TENSORDECK_LANG``, then ``LANGUAGE``,
  ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` (POSIX), then the user's UI language (Windows).
- The window sets the language it shows (:func:`set_language`, from ``gui.i18n``).
- Files keep English (``summary.json``'s reasons, logs): :func:`translate_text` recognises a
  catalogue message in its English text and says it in the chosen language, so that a run
  folder written before a language switch, or by the command line, reads in the window's.
- The doctor's findings carry their title's and fix steps' ids (``core.findings.Text``): the
  window and ``tensordeck doctor`` say them in their language; ``--json`` keeps the English,
  with the ids.

Only the standard library, and nothing slow: ``tensordeck --help`` and a run's launch import
this module (the patterns of :func:`recognise` are compiled when first needed).
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
    #: Parameters that are catalogue messages themselves ("must be {expected}, not {given}":
    #: "an integer"): read back from English, they are said in the same language too.
    nested: tuple[str, ...] = ()


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
    "cli.doctor.cuda_version": Message(
        "with --explain: the CUDA toolkit installed where the output came from, when known",
        "与 --explain 一起：输出所在机器上安装的 CUDA 工具包版本（如已知）"),
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
    "cli.env.wsl": Message("build it inside WSL 2 (DISTRO; default: the default distribution)",
                           "在 WSL 2 中构建（DISTRO；默认：默认发行版）"),
    "cli.env.python": Message("the Python to base a venv on", "创建 venv 所基于的 Python"),
    "cli.env.yes": Message("build without asking", "不询问，直接构建"),
    "cli.env.dry_run": Message("show the plan; build nothing", "只显示计划；不构建任何东西"),
    "cli.cache": Message("show where TensorDeck's cache is, its entries and their size",
                         "显示 TensorDeck 缓存的位置、其中的条目及大小"),
    "cli.cache.clear": Message("clear: remove every entry (each is worked out again when needed)",
                               "clear：删除全部条目（需要时会重新生成）"),
    "cli.gui": Message("open the window (also: tensordeck with no arguments, or tensordeck FILE)",
                       "打开窗口（也可以：不带参数运行 tensordeck，或 tensordeck FILE）"),
    "cli.gui.file": Message("config file to open", "要打开的配置文件"),
    "cli.gui.no_wizard": Message("do not open the first-start wizard", "不打开首次启动向导"),
    "cli.run_dir": Message("write the run folder here", "把运行文件夹写到这里"),
    "cli.dry_run": Message("print each task's command and environment; start nothing",
                           "打印每个任务的命令和环境变量；不启动任何进程"),
    "cli.slurm_login": Message(
        "with --slurm: submit through this login node over SSH (a name of the config's nodes, "
        "or user@host[:port]); login and compute nodes must share a file system",
        "与 --slurm 一起使用：通过 SSH 经此登录节点提交（配置中 nodes 的名称，或 "
        "user@host[:port]）；登录节点与计算节点须共享文件系统"),
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
    # --- a config's field problems (core.config) --------------------------------------------------
    "config.required": Message("is required", "必填"),
    "config.unknown_key": Message("unknown key (allowed: {allowed})",
                                  "未知的键（允许：{allowed}）"),
    "config.unknown_key_close": Message(
        "unknown key; did you mean '{close}'? (allowed: {allowed})",
        "未知的键；是否想写 '{close}'？（允许：{allowed}）"),
    "config.one_of": Message("must be one of: {choices}", "必须是以下之一：{choices}"),
    "config.bound": Message("must be {op} {bound}", "必须 {op} {bound}"),
    "config.at_most": Message("at most {n} entries", "最多 {n} 项"),
    "config.type": Message("must be {expected}, not {given}", "必须是{expected}，而不是{given}",
                           nested=("expected", "given")),
    "config.pattern": Message("must match the pattern {pattern}", "必须符合模式 {pattern}"),
    # what a field must be or was given (config.type's words): a JSON type, or a value
    "type.integer": Message("an integer", "整数"),
    "type.number": Message("a number", "数字"),
    "type.decimal": Message("a decimal number", "小数"),
    "type.string": Message("a string", "字符串"),
    "type.list": Message("a list", "列表"),
    "type.object": Message("an object", "对象"),
    "type.boolean": Message("true or false", "布尔值（true 或 false）"),
    "type.true": Message("true", "布尔值 true"),
    "type.false": Message("false", "布尔值 false"),
    "type.null": Message("null", "空值 null"),
    # the value rules' own words (core/config/value_rules.py, records.py: ValueError texts)
    "config.control_character": Message(
        "contains the control character {character} at position {position}; remove it",
        "含有控制字符 {character}（位置 {position}）；请删除它"),
    "config.not_a_host": Message(
        "{host} is not a host name or IP address (letters, digits, '.', '-', '_'; IPv6 "
        "without brackets)",
        "{host} 不是主机名或 IP 地址（只能用字母、数字、'.'、'-'、'_'；IPv6 不加方括号）"),
    "config.not_a_user": Message(
        "{user} is not a user name: no spaces, no leading '-', none of ; | & $ ` < > ' \" ( ) "
        ": /",
        "{user} 不是用户名：不能有空格，不能以 '-' 开头，不能含 ; | & $ ` < > ' \" ( ) : /"),
    "config.gpu_negative": Message("GPU indexes must be >= 0", "GPU 编号必须 >= 0"),
    "config.gpu_twice": Message("lists a GPU twice", "同一个 GPU 列了两次"),
    "config.task_host_elsewhere": Message(
        '{host} is another machine: describe it in "nodes" and give the task "node": its name',
        '{host} 是另一台机器：请在 "nodes" 中描述它，并在任务的 "node" 中填写它的名称'),
    "config.sbatch_option": Message(
        "must be one long sbatch option, such as --qos=high or #SBATCH --qos=high",
        "必须是一个 sbatch 长选项，例如 --qos=high 或 #SBATCH --qos=high"),
    "config.job_name": Message(
        "must be 1-64 characters, no leading/trailing spaces, no trailing '.', no control "
        'characters, none of \\ / : * ? " < > |',
        "必须是 1-64 个字符，首尾不能有空格，不能以 '.' 结尾，不能含控制字符，也不能含 "
        '\\ / : * ? " < > |'),
    "config.script_missing": Message("must name the training script", "必须填写训练脚本"),
    "config.env_name": Message(
        "{name} is not a valid variable name: use letters, digits and '_', not starting with "
        "a digit (Windows takes more, but no shell can export such a name, nor WSLENV pass it "
        "to WSL); rename it",
        "{name} 不是有效的变量名：只能用字母、数字和 '_'，且不能以数字开头（Windows 接受更多"
        "字符，但任何 shell 都不能导出这样的名称，WSLENV 也不能把它传给 WSL）；请重命名"),
    "config.env_reserved": Message("{name} is set by TensorDeck for each task; remove it",
                                   "{name} 由 TensorDeck 为每个任务设置；请删除它"),
    "config.node_name": Message(
        "{name} is not a node name: 1-64 characters, no control characters, none of "
        '\\ / : * ? " < > |',
        "{name} 不是节点名：须为 1-64 个字符，不能含控制字符，也不能含 "
        '\\ / : * ? " < > |'),
    "config.on_failure_restarts": Message("policy 'on_failure' needs max_restarts >= 1",
                                          "策略 'on_failure' 需要 max_restarts >= 1"),
    # --- what a config's fields say together (core.config.cross_field) -------------------------
    "config.too_many_tasks": Message(
        "{total} tasks in all; a run has at most {limit}: lower the counts",
        "共 {total} 个任务；一次运行最多 {limit} 个：请减少数量"),
    "config.mix.at_least_one": Message("{strategy} needs at least one {role}",
                                       "{strategy} 至少需要一个 {role}"),
    "config.mix.no_ps": Message(
        "multi_worker_mirrored has no ps tasks; use strategy 'parameter_server'",
        "multi_worker_mirrored 没有 ps 任务；请使用策略 'parameter_server'"),
    "config.mix.one_chief": Message(
        "parameter_server needs exactly one chief (the coordinator)",
        "parameter_server 需要恰好一个 chief（协调者）"),
    "config.mix.ps_and_workers": Message(
        "between_graph uses only ps and worker tasks (worker 0 acts as chief)",
        "between_graph 只使用 ps 和 worker 任务（worker 0 充当 chief）"),
    "config.mix.one_process": Message(
        "strategy '{strategy}' runs one process: use a single task {task}",
        "策略 '{strategy}' 只运行一个进程：请只用一个任务 {task}"),
    "config.one_count": Message("a cluster has at most one {role}; use count 1",
                                "一个集群最多有一个 {role}；请把 count 设为 1"),
    "config.one_group": Message("a cluster has at most one {role}; list it once",
                                "一个集群最多有一个 {role}；请只列出一次"),
    "config.wsl_nat": Message(
        "a WSL interpreter runs this machine's tasks inside WSL 2, whose network other machines "
        "cannot reach (NAT): run the nodes' tasks in a job of their own, or choose an "
        "interpreter of this machine",
        "WSL 解释器会在 WSL 2 中运行本机的任务，而其他机器无法访问 WSL 2 的网络（NAT）：请把"
        "各节点的任务放到单独的作业中运行，或选择本机的解释器"),
    "config.local_address": Message(
        "{address} is not reachable from other machines; give the node's LAN address",
        "{address} 无法从其他机器访问；请填写该节点的局域网地址"),
    "config.no_node": Message("no node '{node}' (nodes: {known})",
                              "没有名为 '{node}' 的节点（节点：{known}）", nested=("known",)),
    "config.no_nodes": Message("none defined", "未定义任何节点"),
    "config.address_needed": Message(
        "tasks run here and on other nodes: give this machine's LAN address, which the other "
        "nodes use to reach its tasks",
        "任务既在本机也在其他节点上运行：请填写本机的局域网地址，其他节点通过它访问本机的任务"),
    "config.ports_past": Message("{count} tasks from port {port} run past 65535",
                                 "从端口 {port} 起的 {count} 个任务会超出 65535"),
    "config.port_taken": Message(
        "port {port} is also used by {other}; every task needs its own port",
        "端口 {port} 也被 {other} 使用；每个任务都需要自己的端口"),
    # --- what no field may hold in a config's JSON (core.config.json_checks, core.bounded) -------
    "config.invalid_json": Message("invalid JSON at line {line}, column {column}: {error}",
                                   "JSON 无效，位于第 {line} 行第 {column} 列：{error}"),
    "config.too_deep": Message("nested deeper than {depth} levels; a config needs 4",
                               "嵌套超过 {depth} 层；配置只需要 4 层"),
    "config.not_an_object": Message("must be a JSON object {example}",
                                    "必须是 JSON 对象 {example}"),
    "config.bad_text": Message("contains {what} at position {position}; remove it",
                               "在位置 {position} 含有{what}；请删除它", nested=("what",)),
    "config.nul": Message("a NUL character", "NUL 字符"),
    "config.surrogate": Message("a lone surrogate ({char})", "孤立的代理字符（{char}）"),
    "config.bad_key_text": Message("key contains {what} at position {position}; remove it",
                                   "键在位置 {position} 含有{what}；请删除它", nested=("what",)),
    "config.too_many_entries": Message("{n} entries; at most {limit}",
                                       "共 {n} 项；最多 {limit} 项"),
    "config.not_finite": Message("{value} is not a JSON number; write a finite number",
                                 "{value} 不是 JSON 数字；请写一个有限的数"),
    # core.bounded's own English, which the window reads back (it raises no message id):
    "config.too_large": Message("{value} is too large for a number; write a finite number",
                                "{value} 作为数字太大；请写一个有限的数"),
    "config.long_number": Message("a {digits}-digit number; write at most {limit} digits",
                                  "{digits} 位的数字；最多写 {limit} 位"),
    "config.too_many_digits": Message(
        "a number of about {digits} digits; write at most {limit} digits",
        "数字约有 {digits} 位；最多写 {limit} 位"),
    "config.duplicate_key": Message(
        "duplicate key '{key}': the file gives it twice; keep one",
        "重复的键 '{key}'：文件中出现了两次；请只保留一个"),
    # --- what each run event says (core.describe: the console and the window) -------------------
    "event.task_started": Message("{task} started (pid {pid})", "{task} 已启动（pid {pid}）"),
    "event.task_exited": Message("{task} exited with code {code} ({state})",
                                 "{task} 已退出，退出码 {code}（{state}）"),
    "event.task_restarting": Message("{task} restarts in {delay} s (attempt {attempt})",
                                     "{task} 将在 {delay} 秒后重启（第 {attempt} 次）"),
    "event.run_stopping": Message("stopping: {reason}", "正在停止：{reason}"),
    "event.run_warning": Message("warning: {message}", "警告：{message}"),
    "event.run_started": Message("run folder {run_dir}", "运行文件夹 {run_dir}"),
    "event.run_finished": Message("run {status} (exit code {code})",
                                  "运行{status}（退出码 {code}）"),
    # --- what an exit code means (core.exitcodes) ------------------------------------------------
    "exit.status.0x40010004": Message("terminated by a debugger", "被调试器终止"),
    "exit.status.0x80000003": Message("breakpoint: the process stopped on a debug break",
                                      "断点：进程在调试断点处停止"),
    "exit.status.0xC0000005": Message("access violation: the process crashed",
                                      "访问冲突：进程崩溃"),
    "exit.status.0xC0000006": Message(
        "in-page error: a file the program runs from could not be read",
        "页内错误：无法读取程序运行所需的文件"),
    "exit.status.0xC0000017": Message("out of memory", "内存不足"),
    "exit.status.0xC000001D": Message(
        "illegal instruction: e.g. a TensorFlow build that needs AVX on a CPU without it",
        "非法指令：例如需要 AVX 的 TensorFlow 版本运行在不支持 AVX 的 CPU 上"),
    "exit.status.0xC000007B": Message(
        "bad image: a 32-bit DLL in a 64-bit process, or a damaged DLL",
        "映像错误：64 位进程加载了 32 位 DLL，或 DLL 已损坏"),
    "exit.status.0xC0000094": Message("integer division by zero", "整数除以零"),
    "exit.status.0xC00000FD": Message("stack overflow", "栈溢出"),
    "exit.status.0xC0000135": Message("DLL not found: a DLL the program needs is missing",
                                      "找不到 DLL：程序所需的 DLL 缺失"),
    "exit.status.0xC0000139": Message("entry point not found: a DLL of the wrong version",
                                      "找不到入口点：DLL 版本不对"),
    "exit.status.0xC000013A": Message("Ctrl+C exit", "Ctrl+C 退出"),
    "exit.status.0xC0000142": Message("DLL initialization failed", "DLL 初始化失败"),
    "exit.status.0xC0000374": Message("heap corruption", "堆损坏"),
    "exit.status.0xC0000409": Message(
        "stack buffer overrun / fast fail: the process aborted itself",
        "栈缓冲区溢出 / 快速失败：进程自行中止"),
    "exit.status.0xC0000417": Message("invalid argument to a C runtime function",
                                      "传给 C 运行库函数的参数无效"),
    "exit.status.0xE06D7363": Message("uncaught C++ exception", "未捕获的 C++ 异常"),
    "exit.signal.1": Message("hang-up", "挂断"),
    "exit.signal.2": Message("interrupted, Ctrl+C", "已中断，Ctrl+C"),
    "exit.signal.3": Message("quit", "退出"),
    "exit.signal.4": Message("illegal instruction", "非法指令"),
    "exit.signal.6": Message("aborted", "已中止"),
    "exit.signal.7": Message("bus error", "总线错误"),
    "exit.signal.8": Message("arithmetic error", "算术错误"),
    "exit.signal.9": Message("killed", "已被强制终止"),
    "exit.signal.11": Message("segmentation fault: the process crashed", "段错误：进程崩溃"),
    "exit.signal.13": Message("broken pipe", "管道已断开"),
    "exit.signal.14": Message("alarm", "定时器信号"),
    "exit.signal.15": Message("stopped by TensorDeck", "已被 TensorDeck 停止"),
    "exit.code.126": Message("cannot execute: permission denied or not a program",
                             "无法执行：权限不足或不是可执行程序"),
    "exit.code.127": Message("command not found", "找不到命令"),
    # --- an exit code's tooltip (core.exitcodes.explain) ------------------------------------
    "exit.explain.status": Message("Windows status {shown} ({value}): {what}.",
                                   "Windows 状态码 {shown}（{value}）：{what}。",
                                   nested=("what",)),
    "exit.status.unknown": Message("a status code this table does not know",
                                   "本表不认识的状态码"),
    "exit.explain.signal": Message(
        "{value} = 128 + {number}: the task ended on {name}: {meaning}: {name}.",
        "{value} = 128 + {number}：任务因 {name} 而结束：{meaning}：{name}。",
        nested=("meaning",)),
    "exit.explain.signal_hint": Message(
        "{value} = 128 + {number}: the task ended on {name}: {hint}.",
        "{value} = 128 + {number}：任务因 {name} 而结束：{hint}。", nested=("hint",)),
    "exit.hint.9": Message(
        "killed at once: by TensorDeck when a task outlives the stop grace period, or by the "
        "out-of-memory killer",
        "被立即强制终止：任务超过停止宽限期后由 TensorDeck 终止，或被系统的内存不足终止机制"
        "（OOM killer）终止"),
    "exit.hint.15": Message(
        "stopped by TensorDeck (or whoever sent SIGTERM): the task was asked to exit",
        "被 TensorDeck（或发送 SIGTERM 的程序）停止：任务被要求退出"),
    "exit.explain.126": Message("126: {meaning}.", "126：{meaning}。", nested=("meaning",)),
    "exit.explain.127": Message("127: {meaning}.", "127：{meaning}。", nested=("meaning",)),
    "exit.explain.failed": Message(
        "1: the task failed (for Python: an uncaught exception, its log says which).",
        "1：任务失败（对 Python 来说：有未捕获的异常，日志里写明是哪一个）。"),
    "exit.explain.own": Message("{value}: the task's own exit code (its script chose it).",
                                "{value}：任务自己的退出码（由它的脚本决定）。"),
    # --- what NVML says of the GPUs (core.gpu: the Machine view's GPU card) ---------------------
    "gpu.no_driver": Message(
        "No NVIDIA driver found (nvml.dll / libnvidia-ml.so.1 is missing). Install the NVIDIA "
        "driver for your GPU from nvidia.com/drivers.",
        "未找到 NVIDIA 驱动（缺少 nvml.dll / libnvidia-ml.so.1）。请从 nvidia.com/drivers "
        "安装适合你的 GPU 的 NVIDIA 驱动。"),
    "gpu.driver_not_loaded": Message(
        "The NVIDIA driver is installed but not running. Reboot; if it persists, reinstall the "
        "driver (on Linux check `dmesg` for nvidia errors, Secure Boot).",
        "NVIDIA 驱动已安装，但没有运行。请重启；如果问题仍在，请重新安装驱动（在 Linux 上查看 "
        "`dmesg` 中的 nvidia 错误，以及安全启动（Secure Boot））。"),
    "gpu.driver_mismatch": Message(
        "The NVIDIA driver library and the loaded kernel driver are different versions "
        "(typical right after a driver update). Reboot.",
        "NVIDIA 驱动库与已加载的内核驱动版本不同（刚更新驱动后常会这样）。请重启。"),
    "gpu.nvml_failed": Message("NVML failed to start: {error}", "NVML 启动失败：{error}",
                               nested=("error",)),
    "gpu.none": Message("The NVIDIA driver is running but reports no GPU.",
                        "NVIDIA 驱动正在运行，但没有报告任何 GPU。"),
    "gpu.count": Message("{n} NVIDIA GPU(s)", "{n} 个 NVIDIA GPU"),
    "gpu.no_module": Message(
        "nvidia-ml-py is not installed in TensorDeck's environment: pip install nvidia-ml-py",
        "TensorDeck 的环境中没有安装 nvidia-ml-py：pip install nvidia-ml-py"),
    "gpu.cannot_list": Message("NVML could not list the GPUs: {error}",
                               "NVML 无法列出 GPU：{error}", nested=("error",)),
    #: What NVML says of one GPU it could not read (GpuInfo.error, nvidia-ml-py's English: the
    #: GPU card), said in Chinese when it is one of these.
    "nvml.error.gpu_lost": Message("GPU is lost", "GPU 已丢失（从总线上掉线）"),
    "nvml.error.unknown": Message("Unknown Error", "未知错误"),
    "nvml.error.not_supported": Message("Not Supported", "不支持"),
    "nvml.error.no_permission": Message("Insufficient Permissions", "权限不足"),
    "nvml.error.timeout": Message("Timeout", "超时"),
    "nvml.error.reset_required": Message("GPU requires restart", "GPU 需要重置（重启）"),
    "nvml.error.uninitialized": Message("Uninitialized", "未初始化"),
    "nvml.error.invalid_argument": Message("Invalid Argument", "参数无效"),
    "nvml.error.insufficient_size": Message("Insufficient Size", "缓冲区大小不足"),
    "nvml.error.insufficient_power": Message("Insufficient External Power", "外接电源供电不足"),
    "nvml.error.driver_not_loaded": Message("Driver Not Loaded", "驱动没有加载"),
    "nvml.error.library_not_found": Message("NVML Shared Library Not Found",
                                            "找不到 NVML 共享库"),
    "nvml.error.operating_system": Message("The operating system has blocked the request.",
                                           "操作系统阻止了这个请求。"),
    "nvml.error.version_mismatch": Message("RM has detected an NVML/RM version mismatch.",
                                           "RM 检测到 NVML 与 RM 的版本不一致。"),
    "nvml.error.irq_issue": Message("Interrupt Request Issue", "中断请求（IRQ）出错"),
    "nvml.error.not_found": Message("Not Found", "未找到"),
    "nvml.error.memory": Message("Insufficient Memory", "内存不足"),
    "nvml.error.corrupted_inforom": Message("Corrupted infoROM", "infoROM 已损坏"),
    "nvml.error.function_not_found": Message("Function Not Found", "找不到该函数"),
    # --- a cluster node's GPUs over SSH (core/remote/gpus.py: the Run view) ---------------------
    "gpu.node_count": Message("{n} NVIDIA GPU(s) on node {node}",
                              "节点 {node} 上有 {n} 个 NVIDIA GPU"),
    "gpu.node_no_smi": Message(
        "nvidia-smi not found on node {node}: no NVIDIA driver there; tasks run on CPU",
        "节点 {node} 上找不到 nvidia-smi：那里没有 NVIDIA 驱动；任务在 CPU 上运行"),
    "gpu.node_smi_failed": Message("nvidia-smi failed on node {node}: {output}",
                                   "节点 {node} 上的 nvidia-smi 失败：{output}"),
    "gpu.node_lost": Message("lost the connection to node {node}: {error}",
                             "与节点 {node} 的连接断开了：{error}"),
    # --- why WSL cannot run what was asked (core/wsl/refusals.py) -------------------------------
    "wsl.not_installed": Message(
        "WSL is not installed: run 'wsl --install' in a terminal opened as administrator, then "
        "restart Windows",
        "没有安装 WSL：在以管理员身份打开的终端中运行 'wsl --install'，然后重启 Windows"),
    "wsl.no_distribution": Message(
        "WSL has no Linux distribution installed: install one with "
        "'wsl --install -d Ubuntu-22.04'",
        "WSL 中没有安装任何 Linux 发行版：用 'wsl --install -d Ubuntu-22.04' 安装一个"),
    "wsl.unknown_distribution": Message(
        "no WSL distribution is named {name}; installed: {known}",
        "没有名为 {name} 的 WSL 发行版；已安装：{known}", nested=("known",)),
    "wsl.no_default": Message(
        "WSL has no default distribution: name one (wsl://NAME/path; installed: {known}) or set "
        "it with 'wsl --set-default NAME'",
        "WSL 没有默认发行版：请指定一个（wsl://NAME/path；已安装：{known}），或用 "
        "'wsl --set-default NAME' 设置默认发行版"),
    "wsl.wsl1": Message(
        "WSL distribution {name} runs as WSL 1, which has no GPU: convert it with "
        "'wsl --set-version {name} 2'",
        "WSL 发行版 {name} 以 WSL 1 运行，而 WSL 1 无法使用 GPU：用 "
        "'wsl --set-version {name} 2' 把它转换为 WSL 2"),
    "wsl.unreadable": Message(
        "{what}; run 'wsl -l -v' in a terminal to see what WSL says",
        "{what}；请在终端中运行 'wsl -l -v'，看看 WSL 怎么说", nested=("what",)),
    #: What ``wsl.exe -l -v`` did that TensorDeck cannot trust: "wsl.exe -l -v {what}" with
    #: what it did (the end of a sentence), or how it failed.
    "wsl.list": Message("wsl.exe -l -v {what}", "wsl.exe -l -v {what}", nested=("what",)),
    "wsl.list.not_a_distribution": Message(
        "printed a line that is not a distribution: {line}", "输出了一行不是发行版的内容：{line}"),
    "wsl.list.not_text": Message("printed bytes that are not text", "输出了不是文本的字节"),
    "wsl.list.control": Message("printed the control character U+{code}",
                                "输出了控制字符 U+{code}"),
    "wsl.list.failed": Message("wsl.exe -l -v failed with exit status {code}: {said}",
                               "wsl.exe -l -v 失败（退出状态 {code}）：{said}", nested=("said",)),
    "wsl.list.no_message": Message("no message", "没有消息"),
    "wsl.list.message_not_text": Message("a message that is not text", "一条不是文本的消息"),
    "wsl.cannot_run": Message("cannot run {wsl_exe}: {error}", "无法运行 {wsl_exe}：{error}"),
    #: What core.wsl.bounded_run says of a program it had to kill (the end of a sentence).
    "wsl.overrun.timeout": Message("did not answer in {seconds} s (killed)",
                                   "在 {seconds} 秒内没有响应（已终止）"),
    "wsl.overrun.limit": Message("printed more than {limit} bytes (killed)",
                                 "输出超过了 {limit} 字节（已终止）"),
    "wsl.overrun.open": Message("ended, but something it started kept its output open",
                                "已结束，但它启动的某个程序仍占用着它的输出"),
    # --- the config file's own keys (core/config/validation.py) ---------------------------------
    "config.schema_not_string": Message("must be a string", "必须是字符串"),
    # --- the plan of a TensorFlow environment (core/envcreate/plan.py: env create, the window) ---
    "env.where": Message("Where: {target} ({kind})", "位置：{target}（{kind}）"),
    "env.first": Message("First: removes what an interrupted build left in {target}",
                         "首先：删除中断的构建在 {target} 中留下的内容"),
    "env.download": Message("Download: about {mb} MB", "下载：约 {mb} MB"),
    "env.commands": Message("Commands:", "命令："),
    "env.manual": Message("Steps for you:", "需要你完成的步骤："),
    "env.note": Message("Note: {note}", "注意：{note}"),
    "env.why.cpu_asked": Message("TensorFlow {tf}, the CPU build, as asked",
                                 "TensorFlow {tf}，CPU 版本（按你的要求）"),
    "env.why.cpu_no_code": Message(
        "TensorFlow {tf}, the CPU build: {lacks}, and no release TensorDeck knows has code for "
        "it. TensorFlow trains on the CPU",
        "TensorFlow {tf}，CPU 版本：{lacks}，TensorDeck 知道的版本也都没有针对它的代码。"
        "TensorFlow 将在 CPU 上训练"),
    "env.why.cpu_old_driver": Message(
        "TensorFlow {tf}, the CPU build: the NVIDIA driver (CUDA {driver}) is older than every "
        "TensorFlow GPU release with pip CUDA needs (CUDA 11 or newer); update it for GPU "
        "training",
        "TensorFlow {tf}，CPU 版本：NVIDIA 驱动（CUDA {driver}）比所有通过 pip 提供 CUDA 的 "
        "TensorFlow GPU 版本所需的都旧（需要 CUDA 11 或更新）；要用 GPU 训练，请更新驱动"),
    "env.why.cpu_no_gpu": Message(
        "TensorFlow {tf}, no usable NVIDIA GPU here: the CPU build (TensorFlow trains on the "
        "CPU)",
        "TensorFlow {tf}，这里没有可用的 NVIDIA GPU：CPU 版本（TensorFlow 在 CPU 上训练）"),
    "env.why.linux_gpu": Message(
        "TensorFlow {tf} (CUDA {cuda}, cuDNN {cudnn}): the newest release your driver (CUDA "
        "{driver}) runs; pip brings the CUDA libraries",
        "TensorFlow {tf}（CUDA {cuda}，cuDNN {cudnn}）：你的驱动（CUDA {driver}）能运行的最新"
        "版本；pip 会一并安装 CUDA 库"),
    "env.why.linux_gpu_older": Message(
        "TensorFlow {tf} (CUDA {cuda}, cuDNN {cudnn}): {blocked}; this release's build has code "
        "for it; pip brings the CUDA libraries",
        "TensorFlow {tf}（CUDA {cuda}，cuDNN {cudnn}）：{blocked}；这个版本的构建有针对它的"
        "代码；pip 会一并安装 CUDA 库"),
    "env.why.windows_conda": Message(
        "TensorFlow {tf}: the last release with GPU support on native Windows (CUDA {cuda}, "
        "cuDNN {cudnn}), in a conda env",
        "TensorFlow {tf}：原生 Windows 上最后一个支持 GPU 的版本（CUDA {cuda}，cuDNN {cudnn}），"
        "装在 conda 环境中"),
    "env.why.windows_venv": Message(
        "TensorFlow {tf}: the last release with GPU support on native Windows (CUDA {cuda}, "
        "cuDNN {cudnn}), in a venv with NVIDIA's CUDA 11 pip wheels",
        "TensorFlow {tf}：原生 Windows 上最后一个支持 GPU 的版本（CUDA {cuda}，cuDNN {cudnn}），"
        "装在带有 NVIDIA CUDA 11 pip wheel 的 venv 中"),
    "env.why.wsl": Message(
        "No conda and no Python 3.7-3.10 here for TensorFlow {tf}: the WSL2 route (the current "
        "release)",
        "这里没有 conda，也没有能运行 TensorFlow {tf} 的 Python 3.7-3.10：改走 WSL2 路线"
        "（当前版本）"),
    "env.unknown": Message("unknown", "未知"),
    "env.archs_unknown": Message(
        "Which GPUs TensorFlow {tf}'s build has code for is unknown (TensorDeck has not read "
        "that release's build_info): your GPUs' compute capability was not checked against it.",
        "不知道 TensorFlow {tf} 的构建包含哪些 GPU 的代码（TensorDeck 还没有读过该版本的 "
        "build_info）：没有用它核对你的 GPU 的计算能力。"),
    "env.no_code": Message("TensorFlow {tf}'s GPU build has no code for the {gpus}",
                           "TensorFlow {tf} 的 GPU 构建没有针对 {gpus}的代码"),
    "env.no_code_from": Message(
        "TensorFlow {tf}'s GPU build has no code for the {gpus}; it runs on compute capability "
        "{minimum} and up",
        "TensorFlow {tf} 的 GPU 构建没有针对 {gpus}的代码；它只能在计算能力 {minimum} "
        "及以上的 GPU 上运行"),
    "env.gpu_capability": Message("{gpu} (compute capability {cc})", "{gpu}（计算能力 {cc}）"),
    "env.list_separator": Message(", ", "、"),
    "env.unused_one": Message("{why}: TensorFlow will not use it", "{why}：TensorFlow 不会使用它"),
    "env.unused_many": Message("{why}: TensorFlow will not use them",
                               "{why}：TensorFlow 不会使用它们"),
    "env.step.venv": Message("Create the virtual environment", "创建虚拟环境"),
    "env.step.package": Message("Install {package} {tf}", "安装 {package} {tf}"),
    "env.step.tf": Message("Install TensorFlow {tf}", "安装 TensorFlow {tf}"),
    "env.step.tf_cuda": Message("Install TensorFlow {tf} with its CUDA libraries",
                                "安装 TensorFlow {tf} 及其 CUDA 库"),
    "env.step.conda": Message("Create the conda env with Python 3.10",
                              "创建带 Python 3.10 的 conda 环境"),
    "env.step.conda_cuda": Message("Install CUDA {cuda} and cuDNN {cudnn} into it (conda-forge)",
                                   "在其中安装 CUDA {cuda} 和 cuDNN {cudnn}（conda-forge）"),
    "env.step.cuda11_wheels": Message("Install the CUDA 11 and cuDNN 8.9 libraries as pip wheels",
                                      "以 pip wheel 安装 CUDA 11 和 cuDNN 8.9 库"),
    "env.manual.wsl_install": Message(
        "In PowerShell as administrator: wsl --install (then restart)",
        "以管理员身份在 PowerShell 中运行：wsl --install（然后重启）"),
    "env.manual.wsl_venv": Message(
        'In WSL (Ubuntu): python3 -m venv ~/tf && ~/tf/bin/pip install "tensorflow[and-cuda]"',
        '在 WSL（Ubuntu）中运行：python3 -m venv ~/tf && ~/tf/bin/pip install '
        '"tensorflow[and-cuda]"'),
    "env.manual.native": Message(
        "Or install Python 3.10 (python.org) or Miniconda and run this again for native "
        "TensorFlow {tf}",
        "或者安装 Python 3.10（python.org）或 Miniconda 后再运行一次，以使用原生 TensorFlow {tf}"),
    "env.note.cuda11_newer": Message(
        "These CUDA 11.8 / cuDNN 8.9 wheels are newer than the CUDA 11.2 / cuDNN 8.1 TensorFlow "
        "2.10 was built with: they should load (CUDA 11 minor-version compatibility, cuDNN 8's "
        "stable interface), but this pairing is confirmed only once a GPU run works.",
        "这些 CUDA 11.8 / cuDNN 8.9 wheel 比构建 TensorFlow 2.10 时用的 CUDA 11.2 / cuDNN 8.1 "
        "更新：它们应该能加载（CUDA 11 的次版本兼容性，cuDNN 8 的稳定接口），但只有 GPU "
        "运行成功后才能确认这个组合可用。"),
    "env.note.cuda11_path": Message(
        "TensorDeck puts the wheels' bin folders (site-packages\\nvidia\\*\\bin) on the PATH of "
        "every task it starts from this env, as it does for conda envs.",
        "TensorDeck 会把这些 wheel 的 bin 文件夹（site-packages\\nvidia\\*\\bin）加入它从这个"
        "环境启动的每个任务的 PATH，与 conda 环境的做法相同。"),
    "env.none": Message("none", "无"),
    "env.no_python": Message(
        "no Python found here runs a TensorFlow release (found: {found}). Install Python "
        "3.10-3.12 from python.org (or pass --python PATH), then try again",
        "这里找到的 Python 都不能运行任何 TensorFlow 版本（找到：{found}）。请从 python.org "
        "安装 Python 3.10-3.12（或用 --python PATH 指定），然后重试"),
    "env.too_many": Message("{folder} holds 999 environments named {name}: remove some",
                            "{folder} 中已有 999 个名为 {name} 的环境：请删除一些"),
    # --- building an environment (core.envcreate.build, target, wsl_facts, wsl_folder) ----------
    "env.build.for_you": Message("this plan is for you to follow: {steps}",
                                 "这个计划需要你自己按步骤完成：{steps}"),
    "env.build.removing": Message("Removing what an interrupted build left in {target}",
                                  "正在删除中断的构建在 {target} 中留下的内容"),
    "env.build.left_stays": Message(
        "What an interrupted build left in {target} cannot be removed (a program still uses "
        "it?): delete it, then try again",
        "中断的构建在 {target} 中留下的内容无法删除（仍有程序在使用？）：请删除它，然后重试"),
    "env.build.left_stays_wsl": Message(
        "What an interrupted build left in {target} cannot be removed: delete it (rm -rf {path} "
        "in {distro}), then try again",
        "中断的构建在 {target} 中留下的内容无法删除：请删除它（在 {distro} 中运行 rm -rf "
        "{path}），然后重试"),
    "env.build.cancelled": Message("Cancelled; {removed}.", "已取消；{removed}。",
                                   nested=("removed",)),
    "env.build.failed": Message(
        "{step} failed (exit status {status}). {removed}; nothing was registered.",
        "{step} 失败（退出状态 {status}）。{removed}；没有注册任何解释器。",
        nested=("removed",)),
    "env.build.failed_because": Message(
        "{step} failed (exit status {status}): {why}. {removed}; nothing was registered.",
        "{step} 失败（退出状态 {status}）：{why}。{removed}；没有注册任何解释器。",
        nested=("removed",)),
    "env.build.checking": Message("Checking the new environment: import tensorflow in {python}",
                                  "正在检查新环境：在 {python} 中 import tensorflow"),
    "env.build.imports": Message("TensorFlow {tf} imports; GPUs it sees: {gpus}",
                                 "TensorFlow {tf} 可以导入；它看到的 GPU：{gpus}"),
    "env.build.no_import": Message(
        "TensorFlow was installed but does not import ({error}); {removed}.",
        "TensorFlow 已安装，但无法导入（{error}）；{removed}。", nested=("removed",)),
    "env.build.registered": Message(" and added to the training interpreters",
                                    "，并已加入训练解释器列表"),
    "env.build.built": Message("Built {python}{registered}: TensorFlow {tf}, GPUs: {gpus}.",
                               "已构建 {python}{registered}：TensorFlow {tf}，GPU：{gpus}。"),
    "env.build.built_no_gpu": Message(
        "Built {python}{registered}, but TensorFlow sees no GPU: run 'tensordeck doctor "
        "--python {python}' for why.",
        "已构建 {python}{registered}，但 TensorFlow 看不到 GPU：运行 'tensordeck doctor "
        "--python {python}' 查看原因。"),
    "env.removed": Message("{target} was removed", "{target} 已删除"),
    "env.removed.inside": Message("what was built in {target} was removed",
                                  "在 {target} 中构建的内容已删除"),
    "env.removed.not_all": Message(
        "{target} could not all be removed (a program still uses it?): delete it yourself",
        "{target} 未能全部删除（仍有程序在使用？）：请自己删除它"),
    "env.removed.not_all_wsl": Message(
        "{target} could not all be removed (a program still uses it?): delete it yourself "
        "(rm -rf {path} in {distro})",
        "{target} 未能全部删除（仍有程序在使用？）：请自己删除它（在 {distro} 中运行 rm -rf "
        "{path}）"),
    "env.refused.link": Message("{folder} is a symbolic link: give the folder itself (--path DIR)",
                                "{folder} 是符号链接：请给出文件夹本身（--path DIR）"),
    "env.refused.file": Message(
        "{folder} is a file, not a folder: choose a new folder (--path DIR)",
        "{folder} 是文件，不是文件夹：请选择一个新文件夹（--path DIR）"),
    "env.refused.under_file": Message(
        "{folder} is inside a file, not a folder: choose a new folder (--path DIR)",
        "{folder} 位于一个文件之内，而不是文件夹之内：请选择一个新文件夹（--path DIR）"),
    "env.refused.not_empty": Message(
        "{folder} already exists and is not empty: choose a new folder (--path DIR), or delete "
        "it first",
        "{folder} 已存在且不为空：请选择一个新文件夹（--path DIR），或先删除它"),
    "env.refused.exists_wsl": Message(
        "{folder} already exists: inside WSL TensorDeck builds only into a folder it makes; "
        "choose a new one (--path DIR), or delete it first",
        "{folder} 已存在：在 WSL 中 TensorDeck 只在自己创建的文件夹里构建；请选择一个新文件夹"
        "（--path DIR），或先删除它"),
    "env.wsl.cannot_make": Message("cannot make {folder}: {error}",
                                   "无法创建 {folder}：{error}"),
    "env.wsl.no_answer": Message("python3 in {distro} did not answer: {error}",
                                 "{distro} 中的 python3 没有应答：{error}"),
    "env.wsl.no_python": Message(
        "{distro} has no python3 that runs ({said}): install it there with 'sudo apt install "
        "python3 python3-venv', then try again",
        "{distro} 中没有能运行的 python3（{said}）：请在其中用 'sudo apt install python3 "
        "python3-venv' 安装，然后重试"),
    "env.wsl.unreadable": Message("python3 in {distro} answered what TensorDeck cannot read",
                                  "{distro} 中的 python3 的应答 TensorDeck 无法读取"),
    "env.wsl.no_venv": Message(
        "python3 in {distro} cannot make a virtual environment (Debian and Ubuntu leave "
        "python3-venv out): run 'sudo apt install python3-venv' in {distro}, then try again",
        "{distro} 中的 python3 无法创建虚拟环境（Debian 和 Ubuntu 默认不带 python3-venv）："
        "请在 {distro} 中运行 'sudo apt install python3-venv'，然后重试"),
    "env.wsl.too_many": Message("{home} holds {limit} folders named {name}: remove some",
                                "{home} 中已有 {limit} 个名为 {name} 的文件夹：请删除一些"),
    "env.wsl.not_read": Message("no WSL 2 distribution was read", "没有读取到任何 WSL 2 发行版"),
    "env.wsl.python_too_old": Message(
        "python3 {version} in {distro} runs no TensorFlow release TensorDeck knows: install a "
        "newer Python there, or use a newer distribution (wsl --install -d Ubuntu-24.04)",
        "{distro} 中的 python3 {version} 不能运行 TensorDeck 已知的任何 TensorFlow 版本：请在"
        "其中安装更新的 Python，或使用更新的发行版（wsl --install -d Ubuntu-24.04）"),
    "env.wsl.why": Message("In WSL 2 ({distro}): {why}", "在 WSL 2（{distro}）中：{why}",
                           nested=("why",)),
    "env.wsl.registered_as": Message(
        "Registered as {python}: a job with this interpreter trains inside {distro}",
        "注册为 {python}：使用这个解释器的作业在 {distro} 中训练"),
    "env.wsl.windows_gpu": Message(
        "TensorFlow 2.11 and later use an NVIDIA GPU on Windows only inside WSL 2",
        "TensorFlow 2.11 及更高版本在 Windows 上只能在 WSL 2 中使用 NVIDIA GPU"),
    "env.wsl.driver": Message(
        "Inside WSL 2 TensorFlow reaches the GPU through the Windows NVIDIA driver "
        "(/usr/lib/wsl/lib): install no NVIDIA driver inside the distribution",
        "在 WSL 2 中 TensorFlow 通过 Windows 的 NVIDIA 驱动（/usr/lib/wsl/lib）使用 GPU："
        "不要在发行版中安装 NVIDIA 驱动"),
    "env.manual.wsl_build": Message(
        "Or build it inside WSL 2: tensordeck env create --wsl (its --path is a Linux path "
        "there)",
        "或者在 WSL 2 中构建：tensordeck env create --wsl（其中 --path 是那里的 Linux 路径）"),
    # --- a task's or a run's state (core.events.TaskState, RunStatus) ---------------------------
    "state.pending": Message("pending", "等待中"),
    "state.running": Message("running", "运行中"),
    "state.restarting": Message("restarting", "重启中"),
    "state.succeeded": Message("succeeded", "成功"),
    "state.failed": Message("failed", "失败"),
    "state.stopped": Message("stopped", "已停止"),
    "state.interrupted": Message("interrupted", "已中断"),
    "state.abandoned": Message("abandoned", "已遗弃"),
    "state.unreadable": Message("unreadable", "无法读取"),
    # --- a Slurm job that waits in the queue (core.events.SlurmQueued) --------------------------
    "slurm.queued": Message(
        "Slurm job {job} is queued ({reason}): the tasks start when Slurm grants it",
        "Slurm 作业 {job} 正在排队（{reason}）：Slurm 分配资源后任务才会启动"),
    "slurm.still_queued": Message("Slurm job {job} is still queued ({reason}) after {waited}",
                                  "Slurm 作业 {job} 仍在排队（{reason}），已等待 {waited}"),
    # --- what an interpreter is (core.interpreters.discover's kinds) ---------------------------
    "kind.current": Message("current", "当前"),
    "kind.user": Message("user", "用户指定"),
    "kind.conda": Message("conda", "conda"),
    "kind.venv": Message("venv", "venv"),
    "kind.py-launcher": Message("py-launcher", "py 启动器"),
    "kind.path": Message("path", "PATH 中"),
    "kind.wsl": Message("WSL", "WSL"),
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
    # --- what an interpreter is (core/doctor/machine.py: VERDICTS) ------------------------------
    "verdict.probe-failed": Message("cannot be probed", "无法探测"),
    "verdict.no-tf": Message("TensorFlow is not installed", "未安装 TensorFlow"),
    "verdict.not-imported": Message("not imported (quick check)", "未导入（快速检查）"),
    "verdict.import-failed": Message("TensorFlow fails to import", "TensorFlow 导入失败"),
    "verdict.gpu": Message("GPU build, sees {n} GPU(s)", "GPU 版本，可见 {n} 个 GPU"),
    "verdict.gpu-build-no-gpu": Message("GPU build, sees no GPU: trains on the CPU",
                                        "GPU 版本，看不到 GPU：在 CPU 上训练"),
    "verdict.cpu-build": Message("CPU-only build: trains on the CPU", "仅 CPU 版本：在 CPU 上训练"),
    # --- the doctor's report (core/doctor/report.py) -------------------------------------------
    "doctor.gpus": Message("GPUs: {message}", "GPU：{message}"),
    "doctor.nvml": Message("NVML: {message}", "NVML：{message}", nested=("message",)),
    "doctor.also": Message(" (also {paths})", "（别名：{paths}）"),
    "doctor.none_in_output": Message("No problem found in this output.",
                                     "这段输出中没有发现问题。"),
    "doctor.none": Message("No problem found.", "没有发现问题。"),
    "doctor.counts": Message("{errors} error(s), {others} other finding(s).",
                             "{errors} 个错误，{others} 条其他诊断结果。"),
    "doctor.launcher_strategy": Message("launcher strategy '{strategy}'",
                                        "启动器策略 '{strategy}'"),
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
    "finding.tf-shadowed": Message(
        "Python imports a tensorflow that is not the installed package (TensorFlow's source "
        "tree, or a file or folder of yours named tensorflow)",
        "Python 导入的 tensorflow 不是已安装的包（TensorFlow 的源码目录，或你自己名为 tensorflow "
        "的文件或文件夹）"),
    "finding.os-too-old": Message(
        "The operating system is older than this TensorFlow build needs (its glibc or "
        "libstdc++ on Linux, its macOS version)",
        "操作系统比此 TensorFlow 版本所需的旧（Linux 上的 glibc 或 libstdc++，或 macOS 版本）"),
    "finding.module-not-installed": Message(
        "A module the code imports is not installed in this Python",
        "代码导入的某个模块没有安装在这个 Python 中"),
    "finding.protos-not-compiled": Message(
        "The project's protocol buffer modules (*_pb2.py) were not generated from its .proto "
        "files (protoc not run, or too old)",
        "项目的 protocol buffer 模块（*_pb2.py）没有从它的 .proto 文件生成（没有运行 protoc，"
        "或 protoc 太旧）"),
    "finding.api-removed": Message(
        "The code was written for an older release: it uses a name the installed one removed",
        "这段代码是为旧版本编写的：它使用了已安装版本已移除的名称"),
    "finding.addon-ops-not-loaded": Message(
        "The model uses ops of an add-on library that this program has not imported",
        "模型使用了某个附加库的算子，而这个程序没有导入该库"),
    "finding.tf-too-old": Message(
        "The installed TensorFlow is older than this code (or saved model) needs",
        "已安装的 TensorFlow 比这段代码（或保存的模型）所需的旧"),
    "finding.no-windows-build": Message(
        "This package publishes no build for native Windows: install it inside WSL 2",
        "此包没有为原生 Windows 发布的版本：请在 WSL 2 中安装"),
    "finding.script-not-parsed": Message(
        "The script could not be read as Python 3 (not scanned)",
        "无法把脚本读作 Python 3 代码（未扫描）"),
    "finding.pip-install-failed": Message("pip could not install a package", "pip 无法安装某个包"),
    "finding.dependency-version-conflict": Message(
        "A package TensorFlow depends on has a version this TensorFlow cannot use",
        "TensorFlow 依赖的某个包的版本与此 TensorFlow 不兼容"),
    "finding.unrecognized-error": Message(
        "An error TensorDeck does not know: the lines below are the ones that matter",
        "TensorDeck 不认识的错误：下面这几行是关键"),
    "finding.guessed": Message(
        "Possibly: {cause} (guessed from its words, which are those of real reports with this "
        "cause; no rule knows this output)",
        "可能是：{cause}（根据用词推测：它与这一原因的真实报告用词相同；没有规则认识这段输出）"),
    "finding.no-error-found": Message(
        "This output holds no error message", "这段输出中没有错误信息"),
    "finding.host-out-of-memory": Message(
        "The computer's RAM ran out (the out-of-memory is on the CPU, not on a GPU)",
        "主机内存不足（内存不足发生在 CPU 上，而不是 GPU 上）"),
    # --- the doctor's findings: titles the rules give (core/doctor/explain.py and others) -------
    "finding.no-nvidia-driver.no-device": Message(
        "CUDA finds no GPU: no NVIDIA driver, or the GPU is hidden (CUDA_VISIBLE_DEVICES)",
        "CUDA 找不到 GPU：没有 NVIDIA 驱动，或 GPU 被隐藏了（CUDA_VISIBLE_DEVICES）"),
    "finding.no-nvidia-driver.library": Message(
        "{library} (the NVIDIA driver's library) is not found: no NVIDIA driver installed",
        "找不到 {library}（NVIDIA 驱动的库）：没有安装 NVIDIA 驱动"),
    "finding.no-windows-build.never": Message(
        "{package} publishes no build for native Windows: install it inside WSL 2 (or on Linux)",
        "{package} 没有为原生 Windows 发布的版本：请在 WSL 2（或 Linux）中安装"),
    "finding.no-windows-build.after": Message(
        "{package} publishes no build for native Windows after {last}: pin {last} (with "
        "TensorFlow {tensorflow}), or install it inside WSL 2",
        "{package} 在 {last} 之后没有为原生 Windows 发布的版本：固定使用 {last}（配合 TensorFlow "
        "{tensorflow}），或在 WSL 2 中安装"),
    "finding.module-not-installed.named": Message(
        "{module} is not installed in this Python (its package: {package})",
        "这个 Python 中没有安装 {module}（它所在的包：{package}）"),
    "finding.protos-not-compiled.module": Message(
        "{module} was not generated: the project's .proto files were not compiled with protoc",
        "{module} 没有生成：项目的 .proto 文件没有用 protoc 编译"),
    "finding.api-removed.name": Message(
        "{name} was removed in {package} {release}: the code was written for an older release",
        "{name} 已在 {package} {release} 中移除：这段代码是为旧版本编写的"),
    "finding.api-removed.lr-ignored": Message(
        "The optimizer ignores lr: TensorFlow 2.11's optimizers take learning_rate, so the model "
        "trains at the default rate",
        "优化器忽略了 lr：TensorFlow 2.11 的优化器使用 learning_rate，模型会以默认学习率训练"),
    "finding.addon-ops-not-loaded.op": Message(
        "{op} is an op of {package}, which this program has not imported (or not installed)",
        "{op} 是 {package} 的算子，而这个程序没有导入（或没有安装）它"),
    "finding.tf-too-old.name": Message(
        "TensorFlow {tf} has no {name}: the code was written for a newer release",
        "TensorFlow {tf} 没有 {name}：这段代码是为更新的版本编写的"),
    "finding.tf-too-old.saved-model": Message(
        "The model was saved by a newer TensorFlow (Keras) than the one loading it",
        "该模型是由比加载它的版本更新的 TensorFlow（Keras）保存的"),
    "finding.no-error-found.info": Message(
        "This output holds only TensorFlow's information lines (level I), which report what it "
        "did, not an error",
        "这段输出中只有 TensorFlow 的信息行（I 级别），它们报告所做的事情，而不是错误"),
    "finding.no-error-found.warnings": Message(
        "This output holds only Python warnings (a DeprecationWarning ...), which stop nothing",
        "这段输出中只有 Python 警告（如 DeprecationWarning），它们不会让程序停止"),
    "finding.os-too-old.macos": Message(
        "This binary was built for macOS {version} or later: this Mac's macOS is older",
        "此二进制文件是为 macOS {version} 或更高版本构建的：这台 Mac 的 macOS 更旧"),
    "finding.os-too-old.symbol": Message(
        "This system's {library} has no {version}, which the build needs: the system is older "
        "than the one it was built for",
        "此系统的 {library} 没有该版本所需的 {version}：系统比构建它时所用的系统旧"),
    "finding.no-nvidia-driver.container": Message(
        "The container sees no NVIDIA driver: it was started without the GPU (docker run "
        "--gpus all, or the NVIDIA container runtime)",
        "容器中看不到 NVIDIA 驱动：启动容器时没有传入 GPU（docker run --gpus all，或 NVIDIA 容器"
        "运行时）"),
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
    "finding.python-unsupported.tflite-runtime": Message(
        "tflite-runtime has wheels for Linux and Python 3.8-3.11 only (its last release, "
        "2.14.0): install its successor LiteRT, ai-edge-litert",
        "tflite-runtime 只有适用于 Linux 和 Python 3.8-3.11 的 wheel（其最后版本 2.14.0）："
        "请安装它的后继者 LiteRT，即 ai-edge-litert"),
    "finding.python-unsupported.bitness": Message(
        "A 32-bit / 64-bit mismatch: TensorFlow needs a 64-bit Python",
        "32 位 / 64 位不匹配：TensorFlow 需要 64 位 Python"),
    "finding.python-unsupported.architecture": Message(
        "TensorFlow built for another CPU architecture than this Python's (x86_64 and arm64 on "
        "Apple silicon): use a Python and a TensorFlow of one architecture",
        "TensorFlow 的 CPU 架构与此 Python 的不同（Apple 芯片上的 x86_64 与 arm64）："
        "请使用同一架构的 Python 和 TensorFlow"),
    "finding.mixed-tf-packages.companion": Message(
        "A TensorFlow companion package (tensorflow-text, -addons, -probability, ...) was built "
        "for another TensorFlow version",
        "某个 TensorFlow 配套包（tensorflow-text、-addons、-probability 等）是为另一个 TensorFlow "
        "版本构建的"),
    "finding.conda-env-not-activated.front-end": Message(
        "It works from one place and not from another: the notebook or editor runs another "
        "Python or env than the terminal",
        "在一处能用、在另一处不能用：笔记本或编辑器运行的 Python 或环境与终端的不同"),
    "finding.conda-env-not-activated.no-module": Message(
        "This Python has no TensorFlow: run it in the (conda) env that has it, or install "
        "TensorFlow there",
        "这个 Python 中没有 TensorFlow：请在装有它的（conda）环境中运行，或在这里安装 TensorFlow"),
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
    "finding.mixed-tf-packages.cpu-package": Message(
        "tensorflow-gpu runs on the CPU: a CPU-only tensorflow package installed beside it is "
        "the one imported",
        "tensorflow-gpu 在 CPU 上运行：与它一起安装的纯 CPU 版 tensorflow 包才是实际导入的那个"),
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
    "finding.keras3-strategy-unsupported.keras3-runs": Message(
        "Keras 3 runs here, and code written for Keras 2 failed on it",
        "这里运行的是 Keras 3，为 Keras 2 编写的代码在它上面失败了"),
    "finding.keras3-strategy-unsupported.no-tf-keras": Message(
        "This code asks for tf-keras (Keras 2 for TensorFlow 2.16+), which is not installed",
        "此代码需要 tf-keras（适用于 TensorFlow 2.16 及以上的 Keras 2），但它没有安装"),
    "finding.keras3-strategy-unsupported.script-estimator": Message(
        "{script} uses tf.estimator, removed in TensorFlow 2.16",
        "{script} 使用了 tf.estimator，它已在 TensorFlow 2.16 中移除"),
    "finding.keras3-strategy-unsupported.script-fit": Message(
        "Keras 3 model.fit under {strategy} fails on TensorFlow {tf}",
        "在 TensorFlow {tf} 上，{strategy} 下的 Keras 3 model.fit 会失败"),
    "finding.port-in-use.reserved": Message(
        "The port lies in a range Windows reserved (Hyper-V / WSL): it cannot be bound",
        "该端口位于 Windows 保留的范围内（Hyper-V / WSL）：无法绑定"),
    "finding.peer-unreachable.nccl": Message(
        "NCCL could not connect to another worker: a network interface the others cannot "
        "reach, or a firewall",
        "NCCL 无法连接到另一个 worker：使用了其他机器无法访问的网络接口，或被防火墙阻挡"),
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
    "finding.cuda-version-mismatch.no-build": Message(
        "CUDA {installed} is installed: no TensorFlow release was built for it",
        "已安装的是 CUDA {installed}：没有任何 TensorFlow 版本是针对它构建的"),
    "finding.cuda-version-mismatch.cudnn": Message(
        "cuDNN {installed} is installed; this TensorFlow build wants cuDNN {wanted}",
        "已安装的是 cuDNN {installed}；此 TensorFlow 版本要求 cuDNN {wanted}"),
    "finding.cuda-version-mismatch.unofficial": Message(
        "This TensorFlow build wants CUDA {wanted}, not the CUDA {official} its official "
        "release uses",
        "此 TensorFlow 版本要求 CUDA {wanted}，而不是其官方版本所用的 CUDA {official}"),
    "finding.cpu-only-build.gpu-op": Message(
        "A GPU-only operation on a TensorFlow that registered only the CPU: a CPU-only build, "
        "or its GPU was not found",
        "在只注册了 CPU 的 TensorFlow 上使用了仅限 GPU 的操作：这是仅 CPU 的版本，"
        "或者没有找到 GPU"),
    "finding.cpu-only-build.macos": Message(
        "TensorFlow has no CUDA GPU support on macOS: it runs on the CPU (or Apple's Metal "
        "plugin)",
        "TensorFlow 在 macOS 上不支持 CUDA GPU：它在 CPU 上运行（或使用 Apple 的 Metal 插件）"),
    "finding.cpu-only-build.tensorflow-cpu": Message(
        "tensorflow-cpu is the CPU-only build: it never lists a GPU",
        "tensorflow-cpu 是仅 CPU 版本：它永远不会列出 GPU"),
    "finding.cpu-only-build.no-cuda-looked-for": Message(
        "TensorFlow looked for no CUDA library: most likely a CPU-only build (before 2.1 the "
        "'tensorflow' package, or 'tensorflow-cpu')",
        "TensorFlow 没有查找任何 CUDA 库：很可能是纯 CPU 版本（2.1 之前的 'tensorflow' 包，或 "
        "'tensorflow-cpu'）"),
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
        "{package} 的版本与此 TensorFlow 不兼容"),
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
    # --- the doctor inside WSL (core/doctor/wsl_checks.py) -----------------------------------
    "finding.wsl-linux-driver": Message(
        "A Linux NVIDIA driver is installed inside WSL: its libcuda replaces the one the "
        "Windows driver provides",
        "WSL 内安装了 Linux 版 NVIDIA 驱动：它的 libcuda 会取代 Windows 驱动提供的 libcuda"),
    "finding.wsl-gpu-unavailable": Message(
        "WSL offers no GPU here (no /usr/lib/wsl/lib/libcuda.so.1 or no /dev/dxg): the "
        "Windows NVIDIA driver or WSL is too old",
        "这里的 WSL 没有提供 GPU（缺少 /usr/lib/wsl/lib/libcuda.so.1 或 /dev/dxg）："
        "Windows 的 NVIDIA 驱动或 WSL 太旧"),
    "finding.missing-cuda-runtime.xla": Message(
        "XLA cannot find the CUDA compiler (ptxas) or libdevice",
        "XLA 找不到 CUDA 编译器（ptxas）或 libdevice"),
    "finding.missing-cuda-runtime.no-and-cuda": Message(
        "TensorFlow {tf} was installed without [and-cuda]: it has no CUDA libraries",
        "TensorFlow {tf} 安装时没有带 [and-cuda]：它没有 CUDA 库"),
    "finding.probe-failed.wsl-check": Message(
        "The GPU check inside WSL gave no usable answer (the Windows driver's libcuda, "
        "/dev/dxg and a Linux driver there were not checked)",
        "WSL 内的 GPU 检查没有给出可用的结果（未检查 Windows 驱动的 libcuda、/dev/dxg "
        "以及其中的 Linux 驱动）"),
    "fix.in-wsl": Message(
        "In WSL ({distro}), not in PowerShell: {text}",
        "在 WSL（{distro}）中运行，不要在 PowerShell 中运行：{text}"),
    "fix.wsl-default-distro": Message("the default distribution", "默认发行版"),
    "fix.wsl-driver-purge": Message(
        "remove the Linux NVIDIA driver's packages, and what only they needed:",
        "删除 Linux 版 NVIDIA 驱动的软件包，以及只有它们需要的包："),
    "fix.wsl-driver-uninstall": Message(
        "remove the Linux NVIDIA driver with the uninstaller of NVIDIA's .run installer (a "
        "libcuda file copied there by hand: delete it):",
        "用 NVIDIA .run 安装程序的卸载工具删除 Linux 版 NVIDIA 驱动（手动复制进去的 libcuda "
        "文件：直接删除）："),
    "fix.wsl-driver-ldconfig": Message(
        "refresh the loader's cache, then check that libcuda now comes only from "
        "/usr/lib/wsl/lib:",
        "刷新动态链接器缓存，然后确认 libcuda 现在只来自 /usr/lib/wsl/lib："),
    "fix.wsl-driver-nothing-inside": Message(
        "Install no NVIDIA driver inside WSL, now or later: the Windows NVIDIA driver provides "
        "it (under /usr/lib/wsl/lib). Update the driver on Windows only.",
        "现在和以后都不要在 WSL 内安装 NVIDIA 驱动：Windows 的 NVIDIA 驱动会提供它（位于 "
        "/usr/lib/wsl/lib）。只在 Windows 上更新驱动。"),
    "fix.wsl-windows-driver": Message(
        "On Windows, not in WSL: install or update the NVIDIA driver for your GPU ({url}); "
        "WSL's GPU support comes with it. Then check in PowerShell:",
        "在 Windows 上（不是在 WSL 中）：安装或更新适合你的 GPU 的 NVIDIA 驱动（{url}）；"
        "WSL 的 GPU 支持随它一起提供。然后在 PowerShell 中检查："),
    "fix.wsl-update": Message(
        "In PowerShell on Windows, not in WSL: update WSL and its Linux kernel, restart WSL, "
        "and check that the distribution runs as WSL 2 (VERSION 2):",
        "在 Windows 的 PowerShell 中（不是在 WSL 中）：更新 WSL 及其 Linux 内核，重启 WSL，"
        "并确认该发行版以 WSL 2 运行（VERSION 为 2）："),
    "fix.wsl-gpu-check": Message(
        "check that the GPU device and the Windows driver's libcuda are there, and that "
        "nvidia-smi sees the GPU:",
        "确认 GPU 设备和 Windows 驱动的 libcuda 都在，并且 nvidia-smi 能看到 GPU："),
    # --- the doctor's fix steps (core/doctor/fixes.py, "fix.<key>") ----------------------------
    "fix.command-left-out": Message(
        "{text} (TensorDeck leaves the command out: {why})",
        "{text}（TensorDeck 省略了该命令：{why}）"),
    "fix.set-env-console": Message(
        "Set {name} for the training process (this console):",
        "为训练进程设置 {name}（在此控制台中）："),
    "fix.set-env": Message("Set {name} for the training process:", "为训练进程设置 {name}："),
    "fix.verify-gpu": Message(
        "Check that TensorFlow now lists the GPU:", "检查 TensorFlow 现在是否列出了 GPU："),
    "fix.check": Message("Check:", "检查："),
    "fix.distro.ubuntu": Message("Ubuntu", "Ubuntu"),
    "fix.distro.debian": Message(
        "Debian (enable the contrib, non-free and non-free-firmware components in "
        "/etc/apt/sources.list first)",
        "Debian（先在 /etc/apt/sources.list 中启用 contrib、non-free 和 non-free-firmware 组件）"),
    "fix.distro.fedora": Message("Fedora (from RPM Fusion)", "Fedora（来自 RPM Fusion）"),
    "fix.distro.rhel": Message(
        "RHEL / Rocky / AlmaLinux (NVIDIA's repository)",
        "RHEL / Rocky / AlmaLinux（NVIDIA 的软件源）"),
    "fix.linux-family": Message("{family}: {text}:", "{family}：{text}："),
    "fix.driver-linux-install": Message(
        "install the NVIDIA driver, reboot, then check with nvidia-smi",
        "安装 NVIDIA 驱动并重启，然后用 nvidia-smi 检查"),
    "fix.driver-linux-rebuild": Message(
        "if it still fails, rebuild the driver for the running kernel",
        "如果仍然失败，为当前运行的内核重新构建驱动"),
    "fix.driver-wsl": Message(
        "WSL2 uses the Windows NVIDIA driver: install or update it on Windows ({url}); do not "
        "install a Linux driver inside WSL. Then, in WSL:",
        "WSL2 使用 Windows 的 NVIDIA 驱动：请在 Windows 上安装或更新它（{url}）；不要在 WSL 内"
        "安装 Linux 驱动。然后在 WSL 中："),
    "fix.driver-windows": Message(
        "Install the NVIDIA display driver for your GPU from {url} (it provides nvcuda.dll and "
        "nvml.dll in System32), reboot, then check:",
        "从 {url} 安装适合你的 GPU 的 NVIDIA 显卡驱动（它会在 System32 中提供 nvcuda.dll 和 "
        "nvml.dll），重启，然后检查："),
    "fix.no-gpu-is-fine": Message(
        "If this machine has no NVIDIA GPU, nothing is broken: TensorFlow trains on the CPU.",
        "如果这台机器没有 NVIDIA GPU，那就没有任何问题：TensorFlow 会在 CPU 上训练。"),
    "fix.driver-reinstall-windows": Message(
        "Reinstall the NVIDIA driver (clean install) and reboot; check Device Manager that the "
        "GPU has no warning sign. Then:",
        "重新安装 NVIDIA 驱动（干净安装）并重启；在设备管理器中确认 GPU 没有警告标志。然后："),
    "fix.driver-modprobe": Message(
        "The kernel module does not match or is not loaded (usual after a driver or kernel "
        "update): reboot, or load it, then check:",
        "内核模块不匹配或没有加载（驱动或内核更新后常见）：重启或手动加载它，然后检查："),
    "fix.driver-update": Message(
        "CUDA {cuda} needs NVIDIA driver {driver} or newer ({source}). Update the driver "
        "({url}), reboot, and check that nvidia-smi's 'CUDA Version' is at least {cuda}:",
        "CUDA {cuda} 需要 NVIDIA 驱动 {driver} 或更新版本（{source}）。请更新驱动（{url}）并"
        "重启，然后确认 nvidia-smi 显示的 'CUDA Version' 不低于 {cuda}："),
    "fix.tf-for-driver": Message(
        "Or install a TensorFlow release built for a CUDA your driver supports (see the table "
        "at https://www.tensorflow.org/install/source#gpu).",
        "或者安装针对你的驱动所支持的 CUDA 构建的 TensorFlow 版本（见 "
        "https://www.tensorflow.org/install/source#gpu 中的表格）。"),
    "fix.tf210-recipe": Message(
        "Native Windows GPU: TensorFlow 2.10 with CUDA 11.2 and cuDNN 8.1 in a conda env "
        "(Python 3.7-3.10), from an Anaconda Prompt:",
        "原生 Windows 上使用 GPU：在 conda 环境（Python 3.7-3.10）中安装 TensorFlow 2.10、"
        "CUDA 11.2 和 cuDNN 8.1，在 Anaconda Prompt 中运行："),
    "fix.use-wsl2": Message(
        "Use WSL2 (Windows 10 21H2+ / 11) with the Windows NVIDIA driver; in PowerShell as "
        "administrator:",
        "使用 WSL2（Windows 10 21H2 及以上 / 11）和 Windows 的 NVIDIA 驱动；以管理员身份在 "
        "PowerShell 中运行："),
    "fix.inside-wsl": Message("Then inside WSL (Ubuntu):", "然后在 WSL（Ubuntu）中："),
    "fix.train-on-cpu": Message(
        "Or keep this TensorFlow and train on the CPU.",
        "或者保留这个 TensorFlow，在 CPU 上训练。"),
    "fix.pip-installs-cuda": Message(
        "Since TF 2.14 pip installs the CUDA libraries itself:",
        "从 TF 2.14 起，pip 会自行安装 CUDA 库："),
    "fix.cuda-listed": Message(
        "Install the CUDA toolkit and cuDNN versions listed for your TensorFlow release at "
        "https://www.tensorflow.org/install/source_windows#gpu (Windows) or "
        "https://www.tensorflow.org/install/source#gpu (Linux).",
        "安装你的 TensorFlow 版本所列出的 CUDA 工具包和 cuDNN 版本，见 "
        "https://www.tensorflow.org/install/source_windows#gpu（Windows）或 "
        "https://www.tensorflow.org/install/source#gpu（Linux）。"),
    "fix.cuda-conda-windows": Message(
        "Install CUDA {cuda} and cuDNN {cudnn} into the training env (TensorFlow's documented "
        "conda route), from an Anaconda Prompt with the env activated:",
        "把 CUDA {cuda} 和 cuDNN {cudnn} 安装到训练环境中（TensorFlow 文档中的 conda 方式），"
        "在已激活该环境的 Anaconda Prompt 中运行："),
    "fix.cuda-toolkit-windows": Message(
        "Or install the CUDA {cuda} toolkit from NVIDIA's archive (toolkits install side by "
        "side) and cuDNN {cudnn}, and put both 'bin' folders on PATH (C:\\Program Files\\NVIDIA "
        "GPU Computing Toolkit\\CUDA\\v{cuda}\\bin). Do not rename DLLs of another version.",
        "或者从 NVIDIA 的归档中安装 CUDA {cuda} 工具包（多个工具包可以并存）和 cuDNN {cudnn}，"
        "并把两者的 'bin' 文件夹加入 PATH（C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
        "\\v{cuda}\\bin）。不要重命名其他版本的 DLL。"),
    "fix.cuda-conda-linux": Message(
        "Install CUDA {cuda} and cuDNN {cudnn} into the conda env and put its lib folder on the "
        "library path (TensorFlow's documented route):",
        "把 CUDA {cuda} 和 cuDNN {cudnn} 安装到 conda 环境中，并把它的 lib 文件夹加入库搜索路径"
        "（TensorFlow 文档中的方式）："),
    "fix.looked-for-cuda": Message(
        "TensorFlow looked for {library} (CUDA {cuda}).",
        "TensorFlow 查找的是 {library}（CUDA {cuda}）。"),
    "fix.xla-toolkit": Message(
        "XLA compiles GPU kernels with the CUDA toolkit's ptxas and its nvvm/libdevice folder; "
        "the CUDA runtime libraries alone do not have them. Install the CUDA compiler package "
        "into this environment:",
        "XLA 用 CUDA 工具包中的 ptxas 及其 nvvm/libdevice 文件夹编译 GPU 内核；仅有 CUDA 运行库"
        "并不包含它们。请把 CUDA 编译器包装进这个环境："),
    "fix.xla-data-dir": Message(
        "Or point XLA at a CUDA toolkit folder that holds nvvm/libdevice (a system CUDA, or a "
        "conda env's lib folder after copying libdevice.10.bc into lib/nvvm/libdevice):",
        "或者让 XLA 指向一个含有 nvvm/libdevice 的 CUDA 工具包文件夹（系统的 CUDA，或把 "
        "libdevice.10.bc 复制到 lib/nvvm/libdevice 之后的 conda 环境 lib 文件夹）："),
    "fix.looked-for": Message(
        "TensorFlow looked for {library}.",
        "TensorFlow 查找的是 {library}。"),
    "fix.rerun-verbose": Message(
        "Newer TensorFlow names the missing library only at verbose level; rerun with:",
        "较新的 TensorFlow 只在详细日志级别下才说出缺少的库；请这样重新运行："),
    "fix.zlibwapi": Message(
        "cuDNN 8.3+ on Windows needs zlibwapi.dll (NVIDIA's cuDNN install guide). Install the "
        "cuDNN TensorFlow was tested with instead, which does not:",
        "Windows 上的 cuDNN 8.3 及以上版本需要 zlibwapi.dll（见 NVIDIA 的 cuDNN 安装指南）。"
        "请改为安装 TensorFlow 测试过的 cuDNN，它不需要这个文件："),
    "fix.cudnn-sublibrary": Message(
        "{library} is one of the DLLs cudnn64_8.dll loads at run time: the whole cuDNN 'bin' "
        "folder must be on PATH, not only cudnn64_8.dll.",
        "{library} 是 cudnn64_8.dll 在运行时加载的 DLL 之一：整个 cuDNN 'bin' 文件夹都必须在 "
        "PATH 上，而不只是 cudnn64_8.dll。"),
    "fix.cudnn-conda": Message(
        "Install cuDNN {cudnn} (for CUDA {cuda}) into the training env:",
        "把 cuDNN {cudnn}（用于 CUDA {cuda}）安装到训练环境中："),
    "fix.cudnn-download": Message(
        "Or download cuDNN from NVIDIA and copy its bin/include/lib folders into the CUDA "
        "toolkit folder (or add its bin to PATH).",
        "或者从 NVIDIA 下载 cuDNN，把它的 bin/include/lib 文件夹复制到 CUDA 工具包文件夹中"
        "（或把它的 bin 加入 PATH）。"),
    "fix.cudnn-listed": Message(
        "Install the cuDNN major version your TensorFlow release lists "
        "(https://www.tensorflow.org/install/source#gpu) and put its library folder on the "
        "search path.",
        "安装你的 TensorFlow 版本所列出的 cuDNN 主版本（https://www.tensorflow.org/install/"
        "source#gpu），并把它的库文件夹加入搜索路径。"),
    "fix.wants-cuda": Message(
        "This TensorFlow build wants CUDA {cuda}", "此 TensorFlow 版本要求 CUDA {cuda}"),
    "fix.wants-cudnn": Message(
        "This TensorFlow build wants cuDNN {cudnn}", "此 TensorFlow 版本要求 cuDNN {cudnn}"),
    "fix.wants-cuda-cudnn": Message(
        "This TensorFlow build wants CUDA {cuda} / cuDNN {cudnn}",
        "此 TensorFlow 版本要求 CUDA {cuda} / cuDNN {cudnn}"),
    "fix.wants-installed": Message(
        "{wants}, but CUDA {installed} is what is installed. TensorFlow loads exact library "
        "versions; a newer toolkit does not replace the one it was built for. Never rename "
        "DLLs/.so files of another version.",
        "{wants}，但已安装的是 CUDA {installed}。TensorFlow 加载的是确切版本的库；更新的工具包"
        "不能代替它构建时所用的那个。切勿重命名其他版本的 DLL/.so 文件。"),
    "fix.wants": Message(
        "{wants}. TensorFlow loads exact library versions; a newer toolkit does not replace the "
        "one it was built for. Never rename DLLs/.so files of another version.",
        "{wants}。TensorFlow 加载的是确切版本的库；更新的工具包不能代替它构建时所用的那个。"
        "切勿重命名其他版本的 DLL/.so 文件。"),
    "fix.tf-for-cuda": Message(
        "Or install the TensorFlow release built for the CUDA you have (table: "
        "https://www.tensorflow.org/install/source#gpu).",
        "或者安装针对你已有的 CUDA 构建的 TensorFlow 版本（表格见："
        "https://www.tensorflow.org/install/source#gpu）。"),
    "fix.msvc-check": Message(
        "Check: 'where' prints the path of each runtime DLL it finds (one missing = that "
        "runtime is not installed):",
        "检查：'where' 会打印它找到的每个运行库 DLL 的路径（缺少一个 = 该运行库没有安装）："),
    "fix.msvc-install": Message(
        "Install the latest Microsoft Visual C++ Redistributable (x64):",
        "安装最新的 Microsoft Visual C++ 可再发行组件包（x64）："),
    "fix.msvc-install-provides": Message(
        "Install the latest Microsoft Visual C++ Redistributable (x64), which provides "
        "{library}:",
        "安装最新的 Microsoft Visual C++ 可再发行组件包（x64），它提供 {library}："),
    "fix.msvc-download": Message(
        "Or download and run {url}. A copy of msvcp140.dll elsewhere on PATH (Java, other apps) "
        "is usually too old to count.",
        "或者下载并运行 {url}。PATH 上其他位置的 msvcp140.dll 副本（Java、其他应用）通常太旧，"
        "不能算数。"),
    "fix.avx-check-windows": Message(
        "Check whether the CPU has AVX (True = yes):", "检查 CPU 是否支持 AVX（True = 支持）："),
    "fix.avx-check-linux": Message(
        "Check whether the CPU has AVX (prints 'avx' if yes):",
        "检查 CPU 是否支持 AVX（支持时打印 'avx'）："),
    "fix.avx-needed": Message(
        "TensorFlow 1.6+ release binaries need AVX. Run on a CPU with AVX; inside a VM expose "
        "the host CPU's features (Hyper-V: turn off processor compatibility; QEMU: -cpu host). "
        "Otherwise use a community wheel built without AVX or build TensorFlow from source.",
        "TensorFlow 1.6 及以上的发布版二进制文件需要 AVX。请在支持 AVX 的 CPU 上运行；在虚拟机中"
        "要把宿主 CPU 的特性暴露给虚拟机（Hyper-V：关闭处理器兼容性；QEMU：-cpu host）。否则请"
        "使用社区构建的不含 AVX 的 wheel，或从源码构建 TensorFlow。"),
    "fix.python-64-bit": Message(
        "TensorFlow needs a 64-bit Python; install the 64-bit (x86-64) build from python.org or "
        "use conda.",
        "TensorFlow 需要 64 位 Python；请从 python.org 安装 64 位（x86-64）版本，或使用 conda。"),
    "fix.python-range": Message(
        "TensorFlow {tf} supports Python {pythons}. Create an env with Python {python}:",
        "TensorFlow {tf} 支持 Python {pythons}。请创建一个使用 Python {python} 的环境："),
    "fix.python-newest": Message(
        "pip finds no TensorFlow wheel for this Python. Current TensorFlow supports 64-bit "
        "Python up to {python}; create an env with a supported one:",
        "pip 找不到适用于此 Python 的 TensorFlow wheel。当前的 TensorFlow 支持最高到 {python} "
        "的 64 位 Python；请用受支持的版本创建环境："),
    "fix.numpy-downgrade": Message(
        "This TensorFlow was built against NumPy 1.x; install a matching NumPy:",
        "此 TensorFlow 是基于 NumPy 1.x 构建的；请安装匹配的 NumPy："),
    "fix.numpy-upgrade": Message(
        "A module was built against a newer NumPy; upgrade NumPy:",
        "某个模块是基于更新的 NumPy 构建的；请升级 NumPy："),
    "fix.protobuf-downgrade": Message(
        "protobuf is newer than this TensorFlow supports:",
        "protobuf 比此 TensorFlow 支持的版本更新："),
    "fix.one-variant": Message(
        "Uninstall every TensorFlow variant, then install exactly one:",
        "卸载所有 TensorFlow 变体，然后只安装其中一个："),
    "fix.python-check": Message(
        "Make sure the Python is 64-bit and in the range your TensorFlow supports "
        "(https://www.tensorflow.org/install/source_windows#cpu).",
        "确认 Python 是 64 位的，并且在你的 TensorFlow 支持的范围内"
        "（https://www.tensorflow.org/install/source_windows#cpu）。"),
    "fix.reinstall-tf": Message(
        "Reinstall TensorFlow cleanly (one variant only):",
        "干净地重新安装 TensorFlow（只装一个变体）："),
    "fix.walk-imports": Message(
        "Let TensorDeck walk the DLL imports and name the missing file:",
        "让 TensorDeck 逐个检查 DLL 导入，并指出缺少的文件："),
    "fix.estimator-pin": Message(
        "tf.estimator was removed in TensorFlow 2.16. Pin an older TensorFlow:",
        "tf.estimator 已在 TensorFlow 2.16 中移除。请固定使用更旧的 TensorFlow："),
    "fix.estimator-port": Message(
        "Or port the model to Keras / a custom training loop.",
        "或者把模型移植到 Keras / 自定义训练循环。"),
    "fix.tf-keras-installed": Message(
        "tf-keras {version} (Keras 2) is already installed: tell TensorFlow to use it (in "
        "TensorDeck: the job's \"env\").",
        "tf-keras {version}（Keras 2）已经安装：让 TensorFlow 使用它（在 TensorDeck 中：作业的 "
        "\"env\"）。"),
    "fix.tf-keras-install": Message(
        "Use Keras 2 (tf-keras) with this TensorFlow:",
        "在此 TensorFlow 中使用 Keras 2（tf-keras）："),
    "fix.custom-loop": Message(
        "Or replace model.fit with a custom training loop; with ParameterServerStrategy use "
        "tf.distribute.coordinator.ClusterCoordinator.",
        "或者用自定义训练循环代替 model.fit；使用 ParameterServerStrategy 时请用 "
        "tf.distribute.coordinator.ClusterCoordinator。"),
    "fix.nccl-reduction": Message(
        "Choose a cross-device reduction that does not need NCCL:",
        "选择一种不需要 NCCL 的跨设备归约方式："),
    "fix.nccl-other": Message(
        "or tf.distribute.ReductionToOneDevice(); for MultiWorkerMirroredStrategy use "
        "CommunicationImplementation.RING.",
        "或者 tf.distribute.ReductionToOneDevice()；MultiWorkerMirroredStrategy 请使用 "
        "CommunicationImplementation.RING。"),
    "fix.oom-batch": Message(
        "Reduce the batch size (per replica) or the model size.",
        "减小（每个副本的）批大小或模型规模。"),
    "fix.oom-who": Message(
        "See which other processes hold GPU memory (another training run, a notebook):",
        "查看还有哪些进程占用 GPU 显存（另一个训练、一个 notebook）："),
    "fix.host-memory-check": Message(
        "See how much memory the machine has free while it trains:",
        "查看训练时这台机器还有多少空闲内存："),
    "fix.host-memory-gpu": Message(
        "The tensors are on the CPU: if this machine has an NVIDIA GPU, TensorFlow is not "
        "using it; find out why:",
        "张量在 CPU 上：如果这台机器有 NVIDIA GPU，说明 TensorFlow 没有使用它；查明原因："),
    "fix.companion-match": Message(
        "Install the companion package's release made for this TensorFlow (its release notes "
        "name the TensorFlow each release needs), or the TensorFlow it asks for; then check:",
        "安装为此 TensorFlow 构建的配套包版本（其发布说明写明每个版本需要的 TensorFlow），"
        "或安装它要求的 TensorFlow；然后检查："),
    "fix.shadowed-move": Message(
        "Start Python from another folder (not TensorFlow's source tree), and rename any "
        "tensorflow.py or tensorflow folder of your own next to the script (and delete its "
        "__pycache__).",
        "从另一个文件夹启动 Python（不要在 TensorFlow 源码目录中），并把脚本旁边你自己的 "
        "tensorflow.py 或 tensorflow 文件夹改名（并删除其 __pycache__）。"),
    "fix.shadowed-check": Message(
        "Check which tensorflow Python imports: the path must be in site-packages:",
        "检查 Python 导入的是哪个 tensorflow：路径应在 site-packages 中："),
    "fix.windows-wheel-pin": Message(
        "Install its last release with a Windows build and the TensorFlow it was built for "
        "(Python {python}):",
        "安装它最后一个带 Windows 版本的发布，以及它所对应的 TensorFlow（Python {python}）："),
    "fix.windows-wheel-wsl": Message(
        "Or install and train inside WSL 2, where its Linux build installs: in TensorDeck, "
        "choose a Python inside WSL in the Machine view (Use for this job).",
        "或者在 WSL 2 中安装并训练，那里可以安装它的 Linux 版本：在 TensorDeck 的“本机”视图中"
        "选择 WSL 中的 Python（“用于此作业”）。"),
    "fix.module-install": Message(
        "Install the package that provides {module} into the Python that runs the code (if the "
        "name is misspelled where the code imports it, correct it there instead):",
        "把提供 {module} 的包安装到运行代码的那个 Python 中（如果是代码里导入时拼错了名字，"
        "请改正那里的名字）："),
    "fix.module-find": Message(
        "Install the package that provides the missing module into the Python that runs the "
        "code (its README or requirements.txt names it).",
        "把提供所缺模块的包安装到运行代码的那个 Python 中（见其 README 或 requirements.txt）。"),
    "fix.module-env": Message(
        "If it is installed in another environment (a conda env, a venv), run the code with "
        "that environment's Python, or install it here too.",
        "如果它装在另一个环境中（conda 环境、venv），请用那个环境的 Python 运行代码，或者在这里"
        "也安装它。"),
    "fix.protoc-newer": Message(
        "protoc failed on the project's .proto files: an old protoc cannot read them. Install a "
        "newer protoc (a release from https://github.com/protocolbuffers/protobuf/releases, not "
        "newer than the protobuf package of this Python: pip show protobuf), put it on PATH, "
        "then generate the modules again:",
        "protoc 处理项目的 .proto 文件失败：旧版 protoc 读不了它们。请安装较新的 protoc"
        "（https://github.com/protocolbuffers/protobuf/releases 上的版本，不要新于此 Python 的 "
        "protobuf 包：pip show protobuf），把它加入 PATH，然后重新生成这些模块："),
    "fix.protoc-generate": Message(
        "From the folder that holds {top} (for the Object Detection API: models/research), "
        "generate the *_pb2.py modules of {folder} with protoc:",
        "在包含 {top} 的文件夹中（Object Detection API 为 models/research），用 protoc 生成 "
        "{folder} 的 *_pb2.py 模块："),
    "fix.protoc-generate-guide": Message(
        "Compile the project's .proto files with protoc as its install guide says (the Object "
        "Detection API: from models/research, protoc object_detection/protos/*.proto "
        "--python_out=.).",
        "按项目安装说明用 protoc 编译它的 .proto 文件（Object Detection API：在 models/research "
        "中运行 protoc object_detection/protos/*.proto --python_out=.）。"),
    "fix.api-removed-instead": Message(
        "Change the code: in place of {name}, use {instead}.",
        "修改代码：用 {instead} 代替 {name}。"),
    "fix.api-removed-pin": Message(
        "Or keep the code as it is and install the last release that has {name}:",
        "或者保持代码不变，安装仍含有 {name} 的最后一个版本："),
    "fix.api-removed-find": Message(
        "The package's release notes say what replaced the name; or install the release the "
        "code was written for (its requirements.txt or README names it).",
        "该包的发布说明会写明用什么代替了这个名称；或者安装这段代码所针对的版本（见其 "
        "requirements.txt 或 README）。"),
    "fix.addon-import": Message(
        "Import {module} in the program before it loads the model (import {module}): the "
        "library registers its ops when it is imported, and a SavedModel or TF Hub model that "
        "uses them cannot load without it.",
        "在程序加载模型之前导入 {module}（import {module}）：该库在被导入时注册它的算子，使用这些"
        "算子的 SavedModel 或 TF Hub 模型没有它就无法加载。"),
    "fix.addon-install": Message(
        "If {package} is not installed in this Python, install the release made for this "
        "TensorFlow:",
        "如果这个 Python 中没有安装 {package}，请安装为这个 TensorFlow 构建的版本："),
    "fix.tf-version-check": Message(
        "See which TensorFlow this Python imports:", "查看此 Python 导入的是哪个 TensorFlow："),
    "fix.tf-too-old-upgrade": Message(
        "Install the release the code was written for (its requirements.txt, setup.py or README "
        "names it; pin that one in place of the newest below):",
        "安装这段代码所针对的版本（见其 requirements.txt、setup.py 或 README；"
        "用它代替下面的最新版）："),
    "fix.tf-too-old-upgrade-1": Message(
        "TensorFlow 1.15, the last TF 1 release, has every name TF 1 gained and keeps TF 1's API "
        "(it needs Python 3.7 or older); code written for TensorFlow 2 needs a TF 2 release:",
        "TensorFlow 1.15 是最后一个 TF 1 版本，含有 TF 1 新增的所有名称并保留 TF 1 的 API"
        "（需要 Python 3.7 或更早）；为 TensorFlow 2 编写的代码需要 TF 2 版本："),
    "fix.os-old-check": Message(
        "See the system's glibc version and the newest GLIBCXX its libstdc++ has:",
        "查看系统的 glibc 版本，以及其 libstdc++ 所带的最新 GLIBCXX："),
    "fix.os-old-check-macos": Message(
        "See this Mac's macOS version (the binary needs {version} or later):",
        "查看这台 Mac 的 macOS 版本（该二进制文件需要 {version} 或更高版本）："),
    "fix.os-old-build-macos": Message(
        "Update macOS, or use a TensorFlow (or library) built for this macOS: an older "
        "release, or one built from source with its minimum macOS set to this one "
        "(--macos_minimum_os with Bazel).",
        "升级 macOS，或使用为此 macOS 构建的 TensorFlow（或库）：较旧的版本，"
        "或者从源码构建并把最低 macOS 版本设为当前版本（Bazel 的 --macos_minimum_os）。"),
    "fix.os-old-libstdcxx": Message(
        "In a conda env, a newer libstdc++ from conda-forge (the env's lib folder goes first):",
        "在 conda 环境中，从 conda-forge 安装较新的 libstdc++（环境的 lib 文件夹优先）："),
    "fix.os-old-build": Message(
        "Or use a TensorFlow built for this system: a newer release of the operating system, an "
        "older TensorFlow whose wheels it runs (pip's wheel tag names the glibc a wheel needs: "
        "manylinux2014 is glibc 2.17), or TensorFlow's Docker image.",
        "或者使用为此系统构建的 TensorFlow：升级操作系统版本，使用它能运行其 wheel 的较旧 "
        "TensorFlow（pip 的 wheel 标签写明所需的 glibc：manylinux2014 即 glibc 2.17），"
        "或使用 TensorFlow 的 Docker 镜像。"),
    "fix.install-tf": Message(
        "Install TensorFlow into the Python that runs the script:",
        "把 TensorFlow 安装到运行脚本的这个 Python 中："),
    "fix.port-who-windows": Message(
        "See who holds the port, and Windows' reserved ranges (Hyper-V/WSL reserve ports that "
        "look free):",
        "查看谁占用了该端口，以及 Windows 的保留范围（Hyper-V/WSL 会保留看起来空闲的端口）："),
    "fix.port-free-windows": Message(
        "Stop the leftover task (ps tasks never exit on their own) or give every task a free "
        "port outside those ranges.",
        "停止遗留的任务（ps 任务永远不会自行退出），或给每个任务分配这些范围之外的空闲端口。"),
    "fix.port-who": Message("See who holds the port:", "查看谁占用了该端口："),
    "fix.port-free": Message(
        "Stop the leftover task (ps tasks never exit on their own) or give every task its own "
        "free port; on one machine every task needs a different port.",
        "停止遗留的任务（ps 任务永远不会自行退出），或给每个任务分配自己的空闲端口；同一台机器上"
        "每个任务都需要不同的端口。"),
    "fix.conda-activate": Message(
        "Start Python from the activated env (or let TensorDeck launch it: it adds the env's "
        "library folders itself):",
        "在已激活的环境中启动 Python（或让 TensorDeck 启动它：它会自行加入环境的库文件夹）："),
    "fix.conda-run": Message("Or without activating:", "或者不激活环境："),
    "fix.litert": Message(
        "Install LiteRT, tflite-runtime's successor, and import its interpreter instead "
        "(from ai_edge_litert.interpreter import Interpreter):",
        "安装 tflite-runtime 的后继者 LiteRT，并改为导入它的解释器"
        "（from ai_edge_litert.interpreter import Interpreter）："),
    "fix.front-end-which": Message(
        "See which Python each one runs: this in the terminal, and "
        "'import sys; print(sys.executable)' in a notebook cell or the editor's console:",
        "查看两边各自运行的是哪个 Python：在终端中运行下面的命令，"
        "在笔记本单元格或编辑器的控制台中运行 "
        "'import sys; print(sys.executable)'："),
    "fix.front-end-start": Message(
        "Start the notebook server (or the editor) from the activated env: it then runs that "
        "env's Python, with the library paths the env sets:",
        "从已激活的环境中启动笔记本服务器（或编辑器）：这样它运行的就是该环境的 Python，"
        "并带有该环境设置的库路径："),
    "fix.front-end-kernel": Message(
        "Or register the env as a Jupyter kernel and pick it in the notebook (in an editor: "
        "choose the env's python as the interpreter):",
        "或者把该环境注册为 Jupyter 内核并在笔记本中选择它"
        "（在编辑器中：把该环境的 python 选为解释器）："),
    "fix.conda-ld-library-path": Message(
        "TensorFlow's conda recipe on Linux also needs the env's lib folder on LD_LIBRARY_PATH "
        "at each activation:",
        "在 Linux 上，TensorFlow 的 conda 方案还需要在每次激活时把环境的 lib 文件夹加入 "
        "LD_LIBRARY_PATH："),
    "fix.tf1-compat": Message(
        "Run TF1 code on TF2 through the compat module (top of the script):",
        "通过 compat 模块在 TF2 上运行 TF1 代码（放在脚本开头）："),
    "fix.tf1-convert": Message("Or convert the script:", "或者转换脚本："),
    "fix.removed-contrib": Message(
        "tf.contrib (tensorflow.contrib) was removed in TensorFlow 2 and has no TF2 module: "
        "replace each use (tf-slim, tensorflow-addons, core APIs) or use TensorFlow 1.15 (Python "
        "3.7 or older).",
        "tf.contrib（tensorflow.contrib）已在 TensorFlow 2 中移除，且没有对应的 TF2 模块：逐一"
        "替换它的用法（tf-slim、tensorflow-addons、核心 API），或使用 TensorFlow 1.15（Python "
        "3.7 或更旧）。"),
    "fix.removed-examples": Message(
        "tensorflow.examples (tutorials.mnist's input_data) was removed in TensorFlow 2: load "
        "the data with tf.keras.datasets.mnist.load_data() instead.",
        "tensorflow.examples（tutorials.mnist 的 input_data）已在 TensorFlow 2 中移除：请改用 "
        "tf.keras.datasets.mnist.load_data() 加载数据。"),
    "fix.peer-nccl-interface": Message(
        "Name the network interface the machines reach each other on (ip -br addr lists "
        "them) in every worker's environment:",
        "在每个 worker 的环境中指定机器之间互相可达的网络接口（ip -br addr 可列出它们）："),
    "fix.peer-check": Message(
        "Check that every task in the cluster spec is running and reachable from this one (a "
        "task that exited or crashed leaves the others waiting):",
        "检查集群配置中的每个任务是否都在运行，并且能从这个任务访问到（一个已退出或崩溃的任务"
        "会让其他任务一直等待）："),
    "fix.peer-firewall": Message(
        "Allow the cluster ports through the firewall on every machine:",
        "在每台机器的防火墙上放行集群端口："),
    "fix.peer-device-filters": Message(
        "TF1 between-graph scripts: give each worker device_filters, so it does not wait for "
        "other workers (which may already have finished):",
        "TF1 的图间复制（between-graph）脚本：为每个 worker 设置 device_filters，让它不必等待"
        "其他 worker（它们可能已经结束）："),
    "fix.optional-nothing": Message(
        "Nothing to do for training: TensorRT is only used for inference optimisation and CUPTI "
        "only by the profiler.",
        "训练无需处理：TensorRT 只用于推理优化，CUPTI 只被性能分析器使用。"),
    "fix.macos-metal": Message(
        "TensorFlow has no CUDA on macOS (NVIDIA GPUs are not supported there since 1.2). "
        "Apple-silicon and AMD GPUs: Apple's Metal plugin:",
        "TensorFlow 在 macOS 上没有 CUDA（自 1.2 起不再支持 NVIDIA GPU）。Apple 芯片和 AMD "
        "GPU：使用 Apple 的 Metal 插件："),
    "fix.macos-nvidia": Message(
        "For an NVIDIA GPU, train on a Linux or Windows machine (a LAN node).",
        "要使用 NVIDIA GPU，请在 Linux 或 Windows 机器（局域网节点）上训练。"),
    "fix.tensorflow-gpu-package": Message(
        "TensorFlow {tf}: the 'tensorflow' package is the CPU build; the GPU build is "
        "'tensorflow-gpu':",
        "TensorFlow {tf}：'tensorflow' 包是 CPU 版本；GPU 版本是 'tensorflow-gpu'："),
    "fix.install-gpu-build": Message(
        "For GPU training install the GPU build:", "要用 GPU 训练，请安装 GPU 版本："),
    "fix.compute-capability": Message(
        "compute capability {capability}", "计算能力 {capability}"),
    "fix.this-gpu": Message("this GPU", "这块 GPU"),
    "fix.arch-release": Message(
        "TensorFlow {tf}'s GPU build has code for {gpu}:",
        "TensorFlow {tf} 的 GPU 版本包含针对{gpu} 的代码："),
    "fix.arch-none": Message(
        "No TensorFlow release TensorDeck knows has GPU code for {gpu}: train on the CPU with "
        "the CPU build (or use a newer GPU):",
        "TensorDeck 所知的 TensorFlow 版本都没有针对{gpu} 的 GPU 代码：请用 CPU 版本在 CPU 上训练"
        "（或换用更新的 GPU）："),
    "fix.pip-check": Message(
        "List the installed packages whose versions conflict (pip names each requirement that "
        "is not met):",
        "列出版本相互冲突的已安装包（pip 会指出每个没有满足的依赖要求）："),
    "fix.pip-wheel-tags": Message(
        "pip refused the wheel: it was built for another Python version, bitness or OS. See "
        "which wheel tags this Python accepts (cp310 = Python 3.10, win_amd64 = 64-bit Windows):",
        "pip 拒绝了这个 wheel：它是为其他 Python 版本、位数或操作系统构建的。查看此 Python 接受"
        "哪些 wheel 标签（cp310 = Python 3.10，win_amd64 = 64 位 Windows）："),
    "fix.pip-wheel-download": Message(
        "Download the wheel whose name has one of those tags, or let pip choose: pip install "
        "PACKAGE (no file name).",
        "下载文件名带有其中某个标签的 wheel，或者让 pip 自己选择：pip install PACKAGE（不写"
        "文件名）。"),
    "fix.pip-build": Message(
        "pip found no ready-made wheel for this Python and tried to compile the package from "
        "source, which failed (a compiler or headers are missing). Use a Python version the "
        "package publishes wheels for (TensorFlow 2.10: 3.7-3.10), or an older/newer release of "
        "the package that has one.",
        "pip 没有找到适用于此 Python 的现成 wheel，于是尝试从源码编译这个包，但失败了（缺少编译器"
        "或头文件）。请使用该包发布了 wheel 的 Python 版本（TensorFlow 2.10：3.7-3.10），或使用"
        "提供了 wheel 的该包的更旧/更新版本。"),
    "fix.pip-access": Message(
        "A file is in use or not writable: close the Python programs and notebooks using this "
        "environment, or install for your user only:",
        "某个文件正被占用或不可写：关闭使用此环境的 Python 程序和 notebook，"
        "或者只为当前用户安装："),
    "fix.pip-long-path": Message(
        "Windows refused a path longer than 260 characters. Enable long paths (as "
        "administrator), then install again:",
        "Windows 拒绝了超过 260 个字符的路径。请（以管理员身份）启用长路径，然后重新安装："),
    "fix.pip-short-folder": Message(
        "Or create the environment in a short folder (C:\\envs\\tf).",
        "或者在路径较短的文件夹中创建环境（C:\\envs\\tf）。"),
    "fix.pip-network": Message(
        "pip could not reach the package index: check the network, a proxy (pip --proxy "
        "http://HOST:PORT) or PIP_INDEX_URL, then install again.",
        "pip 无法连接到包索引：请检查网络、代理（pip --proxy http://HOST:PORT）或 PIP_INDEX_URL，"
        "然后重新安装。"),
    "fix.pip-conflict": Message(
        "pip cannot satisfy every requirement at once (the lines above name the packages whose "
        "ranges exclude each other). Install TensorFlow alone in a fresh environment first, "
        "then add the other packages without pinning versions, so pip picks ones that fit "
        "TensorFlow's:",
        "pip 无法同时满足所有依赖要求（上面几行列出了版本范围相互排斥的包）。请先在一个新环境中"
        "单独安装 TensorFlow，然后再添加其他包且不固定版本，让 pip 选出与 TensorFlow 相容的版本："),
    "fix.pip-relax": Message(
        "Or relax the pins in requirements.txt that the message names.",
        "或者放宽 requirements.txt 中消息所提到的版本限制。"),
    "fix.dependency.numpy": Message(
        "NumPy 1.24 removed np.object / np.bool / np.int / np.float that TensorFlow before 2.12 "
        "uses; NumPy 2 breaks modules built for NumPy 1:",
        "NumPy 1.24 移除了 2.12 之前的 TensorFlow 所用的 np.object / np.bool / np.int / "
        "np.float；NumPy 2 会破坏为 NumPy 1 构建的模块："),
    "fix.dependency.protobuf": Message(
        "protobuf must be in the range this TensorFlow pins (TF 2.12+: 3.20.3 or newer; older "
        "TF: below 3.21):",
        "protobuf 必须在此 TensorFlow 固定的范围内（TF 2.12 及以上：3.20.3 或更新；更旧的 TF："
        "低于 3.21）："),
    "fix.dependency.ml-dtypes": Message(
        "ml_dtypes is pinned by TensorFlow (and by jax, which often installs another version):",
        "ml_dtypes 的版本由 TensorFlow 固定（jax 也会固定它，并且常常装上另一个版本）："),
    "fix.dependency.h5py": Message(
        "h5py's compiled part does not match its HDF5 library (often a conda h5py mixed with a "
        "pip one):",
        "h5py 的编译部分与它的 HDF5 库不匹配（常见于 conda 的 h5py 与 pip 的 h5py 混用）："),
    "fix.pip-upgrade": Message(
        "This pip is too old to install a wheel (it looks for a setup.py the wheel does not "
        "have): upgrade pip, then install again:",
        "这个 pip 太旧，无法安装 wheel（它去找 wheel 里没有的 setup.py）："
        "请先升级 pip，再重新安装："),
    "fix.pip-upgrade-tags": Message(
        "This pip is too old for the wheels TensorFlow publishes (their manylinux2010 and "
        "manylinux2014 tags need pip 19 or later, macOS 11 tags pip 20.3): it sees no version "
        "of TensorFlow, or only old ones. Upgrade pip, then install again:",
        "这个 pip 太旧，认不出 TensorFlow 发布的 wheel（manylinux2010 和 manylinux2014 标签需要 "
        "pip 19 或更高，macOS 11 标签需要 pip 20.3）：它找不到 TensorFlow 的任何版本，或只能找到旧"
        "版本。请先升级 pip，再重新安装："),
    "fix.dependency.pin.h5py": Message(
        "h5py 3 returns text where the HDF5 loading of Keras before 2.4 (and TensorFlow before "
        "2.4) expects bytes: keep h5py below 3:",
        "h5py 3 返回的是文本，而 Keras 2.4（及 TensorFlow 2.4）之前的 HDF5 加载代码期望的是字节："
        "请使用低于 3 的 h5py："),
    "fix.dependency.pin.numpy": Message(
        "NumPy 1.20 changed what TensorFlow before 2.5 relies on to turn a symbolic tensor into "
        "an array: keep NumPy below 1.20:",
        "NumPy 1.20 改变了 2.5 之前的 TensorFlow 把符号张量转成数组时所依赖的行为：请使用低于 "
        "1.20 的 NumPy："),
    "fix.dependency.other": Message(
        "{package} does not match what TensorFlow needs:",
        "{package} 不符合 TensorFlow 的要求："),
    "fix.reinstall-package": Message(
        "Reinstall it at the version TensorFlow requires (pip resolves it from TensorFlow's own "
        "requirements):",
        "按 TensorFlow 要求的版本重新安装它（pip 会根据 TensorFlow 自身的依赖要求确定版本）："),
    "fix.reinstall-package-after": Message(
        "{lead} reinstall it at the version TensorFlow requires (pip resolves it from "
        "TensorFlow's own requirements):",
        "{lead}按 TensorFlow 要求的版本重新安装它"
        "（pip 会根据 TensorFlow 自身的依赖要求确定版本）："),
    "fix.reinstall-with-requirements": Message(
        "Reinstall TensorFlow with its own requirements:",
        "连同自身的依赖一起重新安装 TensorFlow："),
    "fix.reinstall-with-requirements-after": Message(
        "{lead} reinstall TensorFlow with its own requirements:",
        "{lead}连同 TensorFlow 自身的依赖一起重新安装 TensorFlow："),
    "fix.unrecognized-read": Message(
        "Read the quoted lines from the bottom up: the last exception names what failed (a "
        "module, a file, a library), the lines before it where. Search for that last line with "
        "your TensorFlow version.",
        "从下往上阅读引用的这几行：最后一个异常说明了什么失败了（一个模块、文件或库），它前面的"
        "几行说明了在哪里失败。用最后那一行加上你的 TensorFlow 版本去搜索。"),
    "fix.unrecognized-walk": Message(
        "If it mentions a DLL, a .so file, CUDA or the GPU, let TensorDeck look at the "
        "interpreter itself (it walks the native imports):",
        "如果其中提到 DLL、.so 文件、CUDA 或 GPU，请让 TensorDeck 直接检查解释器（它会逐个检查"
        "原生导入）："),
    "fix.no-error-paste": Message(
        "Paste the whole output of the failing command, from the command line to its last "
        "line: the traceback's last lines, or TensorFlow's W/E lines before it, are what the "
        "doctor reads.",
        "请粘贴失败命令的完整输出，从命令行一直到最后一行：诊断读取的是 traceback 的最后几行，"
        "或它前面 TensorFlow 的 W/E 行。"),
    "fix.no-error-vlog": Message(
        "Nothing printed but no GPU is used? Run this and paste its output:",
        "什么都没打印，却没有用上 GPU？运行下面的命令并粘贴它的输出："),
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
def _templates() -> list[tuple[str, tuple[str, ...]]]:
    """Every message id with the literal pieces of its English, the most literal first:
    "{family}: {text}:" is tried after every message it would swallow."""
    by_literal = sorted(CATALOGUE.items(),
                        key=lambda item: -len(re.sub(r"\{\w+\}", "", item[1].en)))
    return [(message_id, tuple(piece for piece in re.split(r"\{\w+\}", message.en) if piece))
            for message_id, message in by_literal]


@cache
def _compiled(message_id: str) -> re.Pattern[str]:
    return _pattern(CATALOGUE[message_id].en)


def recognise(text: str) -> tuple[str, dict[str, str]] | None:
    """(message id, parameters) of a catalogue message said in English, else None. Only the
    messages whose every literal piece is in ``text`` are matched (and compiled, once): a
    run's end says its reason without compiling the whole catalogue."""
    for message_id, pieces in _templates():
        if all(piece in text for piece in pieces) and (
                match := _compiled(message_id).match(text)):
            return message_id, match.groupdict()
    return None


def translate_text(text: str, language_code: str | None = None) -> str:
    """``text`` in ``language_code`` when it is a catalogue message in English (a reason read
    from a run folder, a problem core reported), else ``text`` as it is."""
    found = recognise(text)
    if found is None:
        return text
    message_id, params = found
    for name in CATALOGUE[message_id].nested:  # each shorter than text: the recursion ends
        params[name] = translate_text(params[name], language_code)
    return tr(message_id, language_code, **params)
