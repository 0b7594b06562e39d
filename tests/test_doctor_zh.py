"""The doctor in Simplified Chinese: every finding title, fix step and verdict has a zh_CN
template with its English's parameters; findings of real outputs (tests/data/) read fully in
Chinese in the Machine view and in ``tensordeck doctor`` under a Chinese system; ``--json``
stays English, with the message ids."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.doctor import explain as explain_module
from core.doctor.explain import explain
from core.doctor.fixes import _CATALOG, FixContext, make_finding
from core.doctor.machine import VERDICTS
from core.doctor.report import render_finding
from core.findings import Finding
from core.messages import CATALOGUE, tr

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
CORPUS = [json.loads(line) for f in sorted((DATA / "corpus").glob("*.jsonl"))
          for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
SAMPLES = sorted((DATA / "explain").glob("*.txt")) + sorted((DATA / "windows").glob("*.txt"))
DOCTOR_PREFIXES = ("finding.", "fix.", "verdict.", "doctor.")
#: Said the same in both languages: a name.
SAME_IN_CHINESE = {"fix.distro.ubuntu"}
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _fields(template: str) -> list[str]:
    return sorted(re.findall(r"\{(\w+)\}", template))


def _doctor_ids() -> list[str]:
    return [i for i in CATALOGUE if i.startswith(DOCTOR_PREFIXES)]


@pytest.mark.parametrize("message_id", _doctor_ids())
def test_each_doctor_message_has_chinese_with_the_same_parameters(message_id: str) -> None:
    message = CATALOGUE[message_id]
    assert _fields(message.zh_CN) == _fields(message.en)
    if message_id not in SAME_IN_CHINESE:
        assert message.zh_CN != message.en


def test_every_finding_id_and_verdict_has_its_message() -> None:
    assert [f for f in _CATALOG if f"finding.{f}" not in CATALOGUE] == []
    assert [v for v in VERDICTS if f"verdict.{v}" not in CATALOGUE] == []
    titled = [s.title.message_id for s in explain_module._SIGNATURES if s.title]
    assert titled and [t for t in titled if t not in CATALOGUE] == []


def _in_chinese(finding: Finding) -> list[str]:
    """What of ``finding`` is not said in Chinese (its title, a step's text)."""
    left = []
    if finding.message is None or not CHINESE.search(finding.title_in("zh_CN")):
        left.append(finding.title)
    for step in finding.steps:
        if step.message is None or not CHINESE.search(step.text_in("zh_CN")):
            left.append(step.text)
        assert step.text_in("en") == step.text  # the English is the template's
    assert finding.title_in("en") == finding.title
    return left


def _contexts() -> list[FixContext]:
    details = [{}, {"library": "cudart64_110.dll"}, {"library": "zlibwapi.dll"},
               {"library": "cudnn_ops_infer64_8.dll"}, {"library": "msvcp140.dll"},
               {"unnamed": True}, {"cuda": "11.2", "cudnn": "8.1", "installed": "12.0"},
               {"bits": 32}, {"numpy": "downgrade"}, {"numpy": "upgrade"}, {"protobuf": True},
               {"estimator": True}, {"tf_keras": "2.16.0"}, {"port": "2222"},
               {"script": "train.py", "removed": ["tensorflow.contrib", "tensorflow.examples"]},
               {"capability": (3, 0)}, {"capability": (8, 6)}, {"capability": (12, 0)},
               *({"why": w} for w in ("wheel", "build", "access", "long-path", "network",
                                      "conflict")),
               {"package": "numpy", "numpy": "aliases"}, {"package": "protobuf"},
               {"package": "foo"}, {"package": "a b"}]
    return [FixContext(platform=p, tf_version=tf, python=(3, 10), python_exe=exe,
                       conda_env="myenv", distro=distro, detail=dict(d))
            for p, tf, distro, exe, d in itertools.product(
                (None, "windows", "linux", "wsl", "macos"), (None, (1, 15), (2, 10), (2, 16)),
                (None, "ubuntu"), (None, 'C:\\x "y\\python.exe'), details)]


def test_every_fix_of_every_finding_id_reads_in_chinese() -> None:
    """Each id's steps in every context the fixes tell apart (platform, TF, distribution,
    unquotable paths, the rules' details): none left in English."""
    contexts = _contexts()
    left = {text for fid in _CATALOG for ctx in contexts
            for text in _in_chinese(make_finding(fid, "evidence", ctx))}
    assert left == set()


def _corpus_findings() -> list[Finding]:
    found = [f for case in CORPUS for f in explain(case["text"])]
    found += [f for path in SAMPLES
              for f in explain(path.read_text(encoding="utf-8", errors="replace"))]
    return found


def test_every_finding_explain_gives_on_the_recorded_corpus_reads_in_chinese() -> None:
    findings = _corpus_findings()
    assert len({f.message.message_id for f in findings if f.message}) > 20
    assert [left for f in findings for left in _in_chinese(f)] == []
    rendered = render_finding(findings[0], "zh_CN")
    assert findings[0].title not in rendered and findings[0].evidence.splitlines()[0] in rendered


def _doctor(*args: str, lang: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TENSORDECK_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    env["LANG"] = lang
    env["PYTHONIOENCODING"] = "utf-8"  # a Windows pipe is ANSI (cp1252), which has no Chinese
    return subprocess.run([sys.executable, "-m", "core", "doctor", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=240)


def test_cli_explain_follows_a_chinese_system_and_json_stays_english() -> None:
    path = DATA / "explain" / "pip_long_path.txt"
    findings = explain(path.read_text(encoding="utf-8", errors="replace"))
    chinese = _doctor("--explain", str(path), lang="zh_CN.UTF-8")
    assert chinese.returncode == 1, chinese.stderr
    for f in findings:
        assert f.title_in("zh_CN") in chinese.stdout and f.title not in chinese.stdout
    assert tr("doctor.counts", "zh_CN", errors=1, others=len(findings) - 1) in chinese.stdout
    english = _doctor("--explain", str(path), lang="en_US.UTF-8")
    assert findings[0].title in english.stdout
    machine = _doctor("--explain", str(path), "--json", lang="zh_CN.UTF-8")
    data = json.loads(machine.stdout)["findings"]
    assert [(d["title"], d["message_id"]) for d in data] == [
        (f.title, f.message.message_id) for f in findings]
    assert not CHINESE.search(machine.stdout)
    assert all("message_id" in s for d in data for s in d["steps"])


def test_script_findings_read_in_chinese_the_launchers_strategy_too(tmp_path: Path) -> None:
    from core.doctor.scriptscan import scan_script

    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n"
                      "model.fit(x)\n", encoding="utf-8")
    found = scan_script(script, tf_version="2.21", strategy="multi_worker_mirrored")
    assert {f.id for f in found} == {"tf1-api-on-tf2", "keras3-strategy-unsupported"}
    assert [left for f in found for left in _in_chinese(f)] == []
    keras = next(f for f in found if f.id == "keras3-strategy-unsupported")
    assert keras.title_in("zh_CN") == ("在 TensorFlow 2.21 上，启动器策略 'multi_worker_mirrored' "
                                       "下的 Keras 3 model.fit 会失败")


def test_cli_doctor_says_nvmls_gpu_line_in_chinese_and_keeps_the_english() -> None:
    """``GPUs:`` and the ``NVML:`` evidence name what NVML found (a catalogue message, in
    English in --json): under a Chinese system both read in Chinese, under English as before."""
    from core.messages import translate_text

    args = ("--no-import", "--python", sys.executable)
    machine = _doctor(*args, "--json", lang="zh_CN.UTF-8")
    english_message = json.loads(machine.stdout)["gpus"]["message"]
    chinese = _doctor(*args, lang="zh_CN.UTF-8")
    said = translate_text(english_message, "zh_CN")
    assert CHINESE.search(said), english_message  # every text NVML's reading gives is known
    first = chinese.stdout.splitlines()[0]
    assert first == tr("doctor.gpus", "zh_CN", message=said), chinese.stdout
    assert english_message not in chinese.stdout
    nvml_lines = [ln for ln in chinese.stdout.splitlines() if ln.lstrip(" |").startswith("NVML")]
    assert all(ln.endswith(f"| NVML：{said}") for ln in nvml_lines), nvml_lines
    english = _doctor(*args, lang="en_US.UTF-8")
    assert english.stdout.splitlines()[0] == f"GPUs: {english_message}"
    assert all(f"      | NVML: {english_message}" == ln
               for ln in english.stdout.splitlines() if ln.lstrip(" |").startswith("NVML"))


@pytest.mark.parametrize("scenario", ["no-distro", "not-installed"])
def test_cli_doctor_says_wsls_refusal_in_chinese(wsl_standin, scenario) -> None:
    """``tensordeck doctor``'s WSL line (the wsl.exe stand-in): WSL's refusal in the system's
    language, the English as before under English."""
    from core.wsl.refusals import NoDistribution, WslNotInstalled

    refusal = NoDistribution() if scenario == "no-distro" else WslNotInstalled()
    out = {}
    for lang in ("zh_CN.UTF-8", "en_US.UTF-8"):
        env = {k: v for k, v in os.environ.items()
               if k not in ("TENSORDECK_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
        env.update(wsl_standin.environ(scenario), LANG=lang, PYTHONIOENCODING="utf-8")
        out[lang] = subprocess.run(
            [sys.executable, "-m", "core", "doctor", "--no-import"], cwd=ROOT, env=env,
            capture_output=True, text=True, encoding="utf-8", timeout=240).stdout
    assert f"WARN  WSL: {refusal.said('zh_CN')}\n" in out["zh_CN.UTF-8"], out["zh_CN.UTF-8"]
    assert str(refusal) not in out["zh_CN.UTF-8"]
    assert f"WARN  WSL: {refusal}\n" in out["en_US.UTF-8"], out["en_US.UTF-8"]
