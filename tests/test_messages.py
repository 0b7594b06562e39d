"""core.messages: message ids with parameters in English and Simplified Chinese, the command
line in the system's language, and English read back from files said in the window's."""

from __future__ import annotations

import os
import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import messages
from core.messages import CATALOGUE, recognise, system_language, tr, translate_text
from tests.conftest import tensordeck

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _system_language():
    yield
    messages.set_language(None)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_says_the_same_things_in_both_languages():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for message_id, message in CATALOGUE.items():
        assert message.en and message.zh_CN, message_id
        assert _fields(message.en) == _fields(message.zh_CN), message_id
        assert not cjk.search(message.en), message_id
        if cjk.search(message.zh_CN):  # Chinese punctuation, not ASCII, after Chinese text
            assert not re.search(r"[\u4e00-\u9fff][,;:]", message.zh_CN), message_id


def test_the_system_language_decides_unless_one_is_chosen():
    for environ, expected in (({"LANG": "zh_CN.UTF-8"}, "zh_CN"), ({"LANG": "C"}, "en"),
                              ({"LANGUAGE": "zh_TW:en", "LANG": "en_US"}, "zh_CN"),
                              ({"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN"}, "en"),
                              ({"TENSORDECK_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
                              ({}, "en")):
        assert system_language(environ, "linux") == expected, environ
    messages.set_language("zh_CN")
    assert tr("run.completed") == "已完成"
    messages.set_language("en")
    assert tr("run.completed") == "completed"
    messages.set_language("klingon")  # not one we have: the system's
    assert messages.language() == system_language()


def test_english_read_back_is_said_in_the_chosen_language():
    task = "worker:1 ($(id) 数据\n)"  # a hostile name stays as it is, inside the message
    english = tr("run.task_exited", "en", task=task, code="143")
    assert recognise(english) == ("run.task_exited", {"task": task, "code": "143"})
    assert translate_text(english, "zh_CN") == f"{task} 已退出，退出码 143"
    assert translate_text(english, "en") == english
    for unknown in ("", "something core never said", "completed!"):
        assert translate_text(unknown, "zh_CN") == unknown
    for message_id, message in CATALOGUE.items():  # every message comes back from its English
        params = {name: f"<{name}>" for name in _fields(message.en)}
        said = message.en.format(**params)
        assert translate_text(said, "zh_CN") == message.zh_CN.format(**params), message_id


def test_the_command_line_follows_the_system_language():
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TENSORDECK_LANG")}
    utf8 = {**env, "PYTHONIOENCODING": "utf-8"}  # a Windows pipe is ANSI (cp1252) otherwise
    chinese = tensordeck("--help", env={**utf8, "LANG": "zh_CN.UTF-8"}, timeout=60,
                         encoding="utf-8")
    assert CATALOGUE["cli.description"].zh_CN in chinese.stdout.replace("\n", "")
    assert CATALOGUE["cli.validate"].zh_CN in chinese.stdout
    english = tensordeck("--help", env={**env, "LANG": "C.UTF-8"}, timeout=60)
    assert "check a config file" in english.stdout and "检查" not in english.stdout
    chosen = tensordeck("--help", env={**env, "LANG": "zh_CN.UTF-8", "TENSORDECK_LANG": "en"},
                        timeout=60)
    assert chosen.stdout == english.stdout


def test_output_that_cannot_show_chinese_gets_english_not_a_crash():
    """A Windows pipe or file is written in the ANSI code page; cp1252 has no Chinese."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TENSORDECK_LANG")}
    ansi = tensordeck("--help", env={**env, "LANG": "zh_CN.UTF-8", "PYTHONIOENCODING": "cp1252"},
                      timeout=60, encoding="cp1252")
    assert ansi.returncode == 0, ansi.stderr
    assert "check a config file" in ansi.stdout


def test_a_message_inside_a_message_is_said_in_the_same_language():
    english = tr("config.type", "en", expected=tr("type.integer", "en"),
                 given=tr("type.string", "en"))
    assert english == "must be an integer, not a string"
    assert translate_text(english, "zh_CN") == "必须是整数，而不是字符串"
    # What only looks like one (a value of the file, a word no message says) stays as it is.
    assert translate_text("must be a list, not dict_keys", "zh_CN") == "必须是列表，而不是dict_keys"
    hostile = tr("env.unused_one", "en", why="completed")  # said in a non-nested place
    assert translate_text(hostile, "zh_CN") == "completed：TensorFlow 不会使用它"


#: A config that passes every field rule: each example below breaks some of it.
_VALID = {"name": "t", "script": "train.py", "strategy": "parameter_server",
          "tasks": [{"role": "chief"}, {"role": "worker", "count": 2, "port": 2222,
                                        "gpus": [0], "host": "localhost", "node": "n1",
                                        "restart": {"policy": "never"}}],
          "nodes": {"n1": {"host": "h1", "user": "u", "address": "10.0.0.2", "port": 22,
                           "python": "/usr/bin/python3"}},
          "slurm": {"partition": "p", "account": "a", "time_limit": "1:00:00",
                    "gpus_per_task": 1, "extra_sbatch": ["--qos=high"]},
          "env": {"A": "1"}, "restart": {"policy": "on_failure", "max_restarts": 2},
          "stop_grace_seconds": 5, "run_dir": "runs", "args": ["--x"], "address": "10.0.0.1"}
_PLACES = [("name",), ("script",), ("strategy",), ("tasks",), ("tasks", 1), ("tasks", 1, "count"),
           ("tasks", 1, "port"), ("tasks", 1, "gpus"), ("tasks", 1, "host"), ("tasks", 1, "role"),
           ("tasks", 1, "restart"), ("nodes",), ("nodes", "n1", "host"), ("nodes", "n1", "user"),
           ("nodes", "n1", "port"), ("slurm", "partition"), ("slurm", "time_limit"),
           ("slurm", "gpus_per_task"), ("slurm", "extra_sbatch"), ("env",), ("restart",),
           ("restart", "max_restarts"), ("stop_grace_seconds",), ("args",), ("python",),
           ("cross_device_ops",), ("cluster_spec",), ("x-unknown",)]
_SCALARS = (st.none() | st.booleans() | st.integers(-(2**40), 2**40)
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=70) | st.sampled_from(["", "x\x01", "a b", "TF_CONFIG", "1x",
                                                      "-o", "a/b", "on_failure", "#SBATCH -q"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=12), inner, max_size=3), max_leaves=5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_PLACES), _VALUES), min_size=1, max_size=3))
def test_every_field_problem_is_a_catalogue_message(changes):
    """Whatever a file holds, each problem of its fields is a catalogue message (the window
    says it in Chinese); the file keeps the English."""
    import contextlib
    import copy

    from core.config.field_errors import field_problems
    from core.config.records import JobConfig
    from core.model import validate, validation_error

    data = copy.deepcopy(_VALID)
    for place, value in changes:
        inside = data
        with contextlib.suppress(LookupError, TypeError):  # an earlier change took the place
            for key in place[:-1]:
                inside = inside[key]
            inside[place[-1]] = value
    try:
        validate(JobConfig, data)
    except validation_error() as exc:
        for problem in field_problems(exc.errors()):
            assert recognise(problem.message), problem
            chinese = translate_text(problem.message, "zh_CN")
            assert CJK.search(chinese), (problem, chinese)
            assert not re.search(r"\b(must|is not|not a|remove it)\b", chinese), chinese


@given(st.integers(-(2**31), 2**32 - 1) | st.integers(-300, 300))
def test_every_exit_codes_tooltip_is_a_catalogue_message(code):
    from core.exitcodes import explain

    english = explain(code)
    if english:
        chinese = translate_text(english, "zh_CN")
        assert CJK.search(chinese) and not re.search(r"\b(the|task|status|ended)\b", chinese), (
            english, chinese)


@pytest.mark.parametrize("init_error", ["LIBRARY_NOT_FOUND", "DRIVER_NOT_LOADED",
                                        "LIB_RM_VERSION_MISMATCH", "UNKNOWN", None])
def test_what_nvml_says_of_the_gpus_is_a_catalogue_message(init_error):
    from core.gpu import read_gpus
    from tests.nvml_replay import ReplayNvml

    recording: dict = {"system": {}, "devices": []}
    if init_error:
        recording["init_error"] = init_error
    message = read_gpus(ReplayNvml(recording), processes=False).message
    assert recognise(message) and CJK.search(translate_text(message, "zh_CN")), message


def test_the_environment_plan_is_said_in_the_language_asked_for(tmp_path):
    """Every kind of plan (CPU, Linux GPU with a GPU the release lacks, native Windows with
    conda and with pip wheels, the WSL route) and the refusal without a Python: in Chinese
    each line but the commands; the command line's English is the default."""
    from core.envcreate.plan import MachineFacts, make_plan
    from core.gpu.info import GpuInfo

    old, new = (GpuInfo(index=0, name="GTX 980", compute_capability=(5, 2)),
                GpuInfo(index=1, name="H200", compute_capability=(9, 0)))
    py = (("/usr/bin/python3.10", (3, 10)),)
    machines = [MachineFacts("linux", (), None, py), MachineFacts("linux", (old,), (12, 8), py),
                MachineFacts("linux", (old, new), (12, 8), py),
                MachineFacts("linux", (new,), (10, 2), py),
                MachineFacts("windows", (new,), (12, 8), py, "conda.exe"),
                MachineFacts("windows", (new,), (12, 8), py),
                MachineFacts("windows", (new,), (12, 8), (("py3.12", (3, 12)),))]
    for facts in machines:
        plan = make_plan(facts, tmp_path / "env", language="zh_CN")
        lines = plan.describe().splitlines()
        said = [line for line in lines if not line.startswith("  ")] + list(plan.manual)
        assert all(CJK.search(line) for line in said), lines
        assert all(CJK.search(step.text) for step in plan.steps), plan.steps
        assert not any(CJK.search(line) for line in make_plan(facts, tmp_path / "env")
                       .describe().splitlines())
    with pytest.raises(ValueError, match=CJK):
        make_plan(MachineFacts("linux", (), None, ()), tmp_path / "env", language="zh_CN")


_ROLES = st.sampled_from(["chief", "worker", "ps", "evaluator"])
_TASK = st.fixed_dictionaries({"role": _ROLES}, optional={
    "count": st.integers(0, 3) | st.just(70000), "port": st.sampled_from([2222, 2223, 65535]),
    "node": st.sampled_from(["n1", "ghost"])})
_CROSS_FIELD = st.fixed_dictionaries(
    {"name": st.just("t"), "script": st.just("train.py"),
     "strategy": st.sampled_from(["parameter_server", "multi_worker_mirrored", "between_graph",
                                  "mirrored", "single"]),
     "tasks": st.lists(_TASK, min_size=1, max_size=4)},
    optional={"nodes": st.dictionaries(st.sampled_from(["n1", "n2"]), st.fixed_dictionaries({
        "host": st.just("h"), "user": st.just("u"), "python": st.just("/usr/bin/python3"),
        "address": st.sampled_from(["10.0.0.2", "localhost"])}), max_size=2),
        "address": st.sampled_from(["localhost", "10.0.0.1"]),
        "python": st.just("wsl://Ubuntu/usr/bin/python3")})
#: Files broken before their fields are judged (core.config.json_checks, core.bounded).
_BROKEN_JSON = ['{"name": "t", "name": "u", "tasks": [{"role": "worker", "role": "ps"}]}',
                '{"name": NaN, "script": 1e999, "x": 1' + "0" * 5000 + "}",
                '{"name": "a\\u0000b", "scr\\u0000ipt": "\\ud800"}', '{"a": ' * 40 + "1" + "}" * 40,
                '{"name": [' + ",".join(["1"] * 70000) + "]}", '{"name": "t",,}', "[1, 2]"]


def _core_problems(check) -> list:
    from core.config import ConfigError

    try:
        check()
    except ConfigError as exc:
        return exc.problems
    return []


def _said_by_its_id(problems: list, language: str) -> None:
    """Each problem in English whatever the window's language, with its message id (core's
    own) or recognised from its English (core.bounded's); in Chinese without English words."""
    for problem in problems:
        if problem.text is not None:
            assert problem.message == problem.text.en, problem
            assert recognise(problem.message)[0] == problem.text.message_id, problem
        assert not CJK.search(problem.message), (language, problem)
        chinese = problem.said("zh_CN")
        assert CJK.search(chinese), (problem, chinese)
        assert not re.search(r"\b(must|needs|is also used|every task|no node|remove it|write|"
                             r"keep one|entries|nested|invalid)\b", chinese), chinese


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=_CROSS_FIELD)
def test_what_fields_say_together_is_said_by_message_id(language, config):
    """Whatever roles, counts, ports and nodes a config mixes, each cross-field problem carries
    its message id and the English the command line prints (``tensordeck validate``), even
    when the window speaks Chinese."""
    from core.config import parse_config

    messages.set_language(language)
    _said_by_its_id(_core_problems(lambda: parse_config(config)), language)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("text", _BROKEN_JSON, ids=range(len(_BROKEN_JSON)))
def test_what_no_field_may_hold_is_said_by_message_id(language, text):
    from core.config.json_checks import parse_text

    messages.set_language(language)
    problems = _core_problems(lambda: parse_text(text, "job.json"))
    assert problems
    _said_by_its_id(problems, language)


def test_the_doctors_nvml_evidence_is_said_in_chinese():
    from core.doctor.machine import diagnose_machine
    from core.gpu import read_gpus
    from tests.nvml_replay import ReplayNvml

    report = read_gpus(ReplayNvml.load("driver_mismatch"), processes=False)
    [evidence] = {f.evidence for f in diagnose_machine(report, []) if f.evidence.startswith("NVML")}
    assert evidence == f"NVML: {report.message}"
    assert translate_text(evidence, "zh_CN") == f"NVML：{CATALOGUE['gpu.driver_mismatch'].zh_CN}"


def _refusals() -> list:
    from core.wsl import distros
    from core.wsl.refusals import (
        NoDefaultDistribution,
        NoDistribution,
        UnknownDistribution,
        Wsl1Distribution,
        WslNotInstalled,
        WslUnreadable,
    )

    found = [WslNotInstalled(), NoDistribution(), UnknownDistribution("X", []),
             UnknownDistribution("X", ["Ubuntu", "Legacy"]), NoDefaultDistribution(["Ubuntu"]),
             Wsl1Distribution("Legacy"), distros._failure("", 5), distros._failure("\x07", 5),
             distros._failure("Access is denied.", 5), WslUnreadable("something")]
    for text in ("x\ufffd", "NAME STATE VERSION\n\x01", "NAME STATE VERSION\nnot a row\n"):
        with pytest.raises(WslUnreadable) as refused:
            distros.parse_listing(text)
        found.append(refused.value)
    return found


def test_wsls_refusals_keep_their_english_and_carry_their_message_ids():
    """``str()`` is the English the command line always said; ``text`` (and the English read
    back, for a caller that kept only the string) says it in Chinese."""
    from core.wsl import distros
    from core.wsl.bounded_run import Overrun

    english = [str(r) for r in _refusals()]
    assert english[:10] == [
        "WSL is not installed: run 'wsl --install' in a terminal opened as administrator, then "
        "restart Windows",
        "WSL has no Linux distribution installed: install one with "
        "'wsl --install -d Ubuntu-22.04'",
        "no WSL distribution is named X; installed: none",
        "no WSL distribution is named X; installed: Ubuntu, Legacy",
        "WSL has no default distribution: name one (wsl://NAME/path; installed: Ubuntu) or set "
        "it with 'wsl --set-default NAME'",
        "WSL distribution Legacy runs as WSL 1, which has no GPU: convert it with "
        "'wsl --set-version Legacy 2'",
        "wsl.exe -l -v failed with exit status 5: no message; run 'wsl -l -v' in a terminal to "
        "see what WSL says",
        "wsl.exe -l -v failed with exit status 5: a message that is not text; run 'wsl -l -v' "
        "in a terminal to see what WSL says",
        "wsl.exe -l -v failed with exit status 5: Access is denied.; run 'wsl -l -v' in a "
        "terminal to see what WSL says",
        "something; run 'wsl -l -v' in a terminal to see what WSL says"]
    assert english[10:] == [
        f"wsl.exe -l -v {what}; run 'wsl -l -v' in a terminal to see what WSL says"
        for what in ("printed bytes that are not text", "printed the control character U+0001",
                     "printed a line that is not a distribution: not a row")]
    for refusal in _refusals():
        chinese = refusal.said("zh_CN")
        assert refusal.text.en == str(refusal) and CJK.search(chinese), refusal
        assert translate_text(str(refusal), "zh_CN") == chinese
        assert not re.search(r"\b(installed|distribution|printed|failed|message)\b",
                             chinese.replace("wsl.exe -l -v", "")), chinese
    overrun = distros.WslUnreadable(distros._known(str(Overrun("did not answer in 30 s "
                                                               "(killed)"))))
    assert overrun.said("zh_CN").startswith("在 30 秒内没有响应（已终止）；")


def test_what_the_nodes_nvidia_smi_and_nvml_say_is_a_catalogue_message():
    """The Run view's node GPUs (core.remote.gpus) and NVML's other texts read back from their
    English, which stays as it was."""
    from core.gpu.info import GpuInfo
    from core.remote.gpus import _Rounds, finished_report

    reports = []
    rounds = _Rounds("b", reports.append)
    rounds.add(GpuInfo(index=0), "550.1")
    rounds.add(GpuInfo(index=0), "550.1")
    texts = {
        reports[0].message: "节点 b 上有 1 个 NVIDIA GPU",
        finished_report("b", 127, "", "").message:
            "节点 b 上找不到 nvidia-smi：那里没有 NVIDIA 驱动；任务在 CPU 上运行",
        tr("gpu.no_module", "en"):
            "TensorDeck 的环境中没有安装 nvidia-ml-py：pip install nvidia-ml-py",
        "NVML could not list the GPUs: Unknown Error": "NVML 无法列出 GPU：未知错误",
        "GPU is lost": "GPU 已丢失（从总线上掉线）",
    }
    assert list(texts)[:2] == ["1 NVIDIA GPU(s) on node b",
                               "nvidia-smi not found on node b: no NVIDIA driver there; tasks run "
                               "on CPU"]
    assert tr("gpu.no_module", "en") == ("nvidia-ml-py is not installed in TensorDeck's "
                                         "environment: pip install nvidia-ml-py")
    assert {english: translate_text(english, "zh_CN") for english in texts} == texts


def test_a_schema_link_that_is_not_a_string_is_said_by_message_id():
    from core.config import ConfigError
    from core.config.validation import parse_config

    with pytest.raises(ConfigError) as refused:
        parse_config({"$schema": 1, "name": "t", "script": "t.py", "tasks": [{"role": "worker"}]})
    [problem] = refused.value.problems
    assert str(problem) == "$schema: must be a string"
    assert problem.said("zh_CN") == "必须是字符串"
