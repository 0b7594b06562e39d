"""The doctor is never silent and fits its fixes to the machine: failure families read by what
the message means (tests/data/explain), the last-resort finding, ranking from the evidence, the
Linux driver fix per distribution (/etc/os-release), tf-keras and removed TF1 modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.doctor.context import linux_distro
from core.doctor.explain import explain
from core.doctor.fixes import FixContext, make_finding
from core.doctor.scriptscan import scan_script
from core.doctor.wording import is_guess

DATA = Path(__file__).parent / "data"
CORPUS = [json.loads(line) for f in sorted((DATA / "corpus").glob("*.jsonl"))
          for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]


def _read(name: str) -> str:
    return (DATA / "explain" / name).read_text(encoding="utf-8")


def _commands(finding) -> str:
    return "\n".join(f"{s.text}\n{s.command or ''}" for s in finding.steps)


@pytest.mark.parametrize(("name", "fid", "named", "fix"), [
    ("pip_resolution_impossible.txt", "pip-install-failed", None, "fresh environment"),
    ("pip_wheel_refused.txt", "pip-install-failed", None, "pip debug --verbose"),
    ("pip_build_failed.txt", "pip-install-failed", None, "compile the package from source"),
    ("pip_long_path.txt", "pip-install-failed", None, "LongPathsEnabled"),
    ("numpy_removed_aliases.txt", "dependency-version-conflict", "numpy", '"numpy<1.24"'),
    ("ml_dtypes_mismatch.txt", "dependency-version-conflict", "ml-dtypes", "ml-dtypes"),
    ("protobuf_too_old.txt", "dependency-version-conflict", "protobuf", "protobuf"),
    ("h5py_dll.txt", "dependency-version-conflict", "h5py", "h5py"),
    ("examples_removed.txt", "tf1-api-on-tf2", "tensorflow.examples",
     "tf.keras.datasets.mnist.load_data()"),
])
def test_families_from_what_the_message_means(name: str, fid: str, named: str | None,
                                              fix: str) -> None:
    text = _read(name)
    first = explain(text)[0]
    assert first.id == fid, [f.id for f in explain(text)]
    if named:
        assert named in first.title
    assert fix in _commands(first)
    assert all(line in text for line in first.evidence.splitlines())


@pytest.mark.parametrize(("package", "module"), [("jax", "jax"), ("absl-py", "absl"),
                                                 ("typing-extensions", "typing_extensions")])
def test_dependency_family_names_any_package(package: str, module: str) -> None:
    """Not a list of examples: any package the failing import names is the one to fix."""
    text = _read("protobuf_too_old.txt").replace("google.protobuf.internal", module)
    first = explain(text)[0]
    assert first.id == "dependency-version-conflict" and package in first.title
    assert f"install --force-reinstall tensorflow {package}" in _commands(first)


def test_the_scripts_own_module_is_not_a_dependency() -> None:
    text = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
            "    utils.load_data()\nAttributeError: module 'utils' has no attribute "
            "'load_data'\n")
    assert [f.id for f in explain(text) if not is_guess(f)] == ["unrecognized-error"]


def test_resolver_conflict_for_any_package() -> None:
    text = _read("pip_resolution_impossible.txt").replace("protobuf", "grpcio")
    assert explain(text)[0].id == "pip-install-failed"


def test_unknown_error_quotes_the_decisive_lines() -> None:
    text = _read("unknown_error.txt")
    *guesses, finding = explain(text)  # the wording model's guess may come first
    assert all(map(is_guess, guesses)) and len(guesses) <= 1
    assert finding.id == "unrecognized-error" and finding.severity == "warning"
    assert finding.evidence.splitlines()[-1].startswith("ValueError: Arguments `target`")
    assert "Epoch 1/5" not in finding.evidence
    assert "last exception" in _commands(finding)


def test_a_failed_command_is_never_called_error_free() -> None:
    [finding] = explain("C:\\py310\\python.exe: No module named venv")
    assert finding.id == "unrecognized-error" and "No module named venv" in finding.evidence


def test_output_without_error_says_so() -> None:
    [finding] = explain("Epoch 1/10\n1875/1875 [====] - 3s 1ms/step - loss: 0.29")
    assert finding.id == "no-error-found" and finding.severity == "info"
    assert "loss: 0.29" in finding.evidence


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_never_silent_on_any_part_of_a_real_output(case: dict) -> None:
    """Every line of every real output, alone, still gets a finding with evidence."""
    for line in case["text"].splitlines():
        if line.strip():
            findings = explain(line)
            assert findings and findings[0].evidence, line


@pytest.mark.parametrize(("platform", "text", "title"), [
    ("macos", "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]", "macOS"),
    ("linux", "tensorflow-cpu 2.15.0\n[PhysicalDevice(name='/physical_device:CPU:0', "
              "device_type='CPU')]", "tensorflow-cpu"),
    ("linux", "tensorflow 1.14.0\nNum GPUs Available:  0", "tensorflow-gpu"),
])
def test_no_gpu_listed_explained_by_the_context(platform: str, text: str, title: str) -> None:
    findings = explain(text, platform=platform)
    assert findings[0].id == "cpu-only-build" and title in findings[0].title
    assert "no-nvidia-driver" not in [f.id for f in findings]


def test_cuda_set_partly_loaded_is_a_version_mismatch_first() -> None:
    text = ("I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened "
            "dynamic library cudart64_110.dll\n"
            "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
            "dynamic library 'cusolver64_10.dll'; dlerror: cusolver64_10.dll not found")
    ids = [f.id for f in explain(text, platform="windows", tf_version="2.4.0")]
    assert ids.index("cuda-version-mismatch") < ids.index("missing-cuda-runtime")


def test_bare_dll_load_failure_says_what_to_check_for_each_cause() -> None:
    text = ("ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The "
            "specified module could not be found.\nFailed to load the native TensorFlow runtime.")
    findings = {f.id: f for f in explain(text, platform="windows", tf_version="2.10.1")}
    assert {"missing-msvc-runtime", "cpu-no-avx", "native-runtime-load-failed"} <= set(findings)
    msvc = findings["missing-msvc-runtime"].steps[0]
    assert msvc.argv == (("where", "msvcp140.dll", "msvcp140_1.dll", "vcruntime140.dll",
                          "vcruntime140_1.dll"),)
    assert "IsProcessorFeaturePresent" in findings["cpu-no-avx"].steps[0].command
    assert "--force-reinstall" in _commands(findings["native-runtime-load-failed"])


OS_RELEASES = {
    "debian": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_ID="12"\nID=debian\n',
    "ubuntu": 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n',
    "mint": 'NAME="Linux Mint"\nVERSION_ID="21.3"\nID=linuxmint\nID_LIKE="ubuntu debian"\n',
    "fedora": 'NAME="Fedora Linux"\nVERSION_ID=40\nID=fedora\n',
    "rocky": 'NAME="Rocky Linux"\nVERSION_ID="9.4"\nID="rocky"\nID_LIKE="rhel centos fedora"\n',
    "rhel8": 'NAME="Red Hat Enterprise Linux"\nVERSION_ID="8.9"\nID="rhel"\nID_LIKE="fedora"\n',
    "arch": 'NAME="Arch Linux"\nID=arch\n',
}


@pytest.mark.parametrize(("name", "family", "command"), [
    ("debian", "debian", "apt install linux-headers-amd64 nvidia-driver firmware-misc-nonfree"),
    ("ubuntu", "ubuntu", "sudo ubuntu-drivers install"),
    ("mint", "ubuntu", "sudo ubuntu-drivers install"),
    ("fedora", "fedora", "akmod-nvidia"),
    ("rocky", "rhel9", "cuda-rhel9.repo"),
    ("rhel8", "rhel8", "cuda-rhel8.repo"),
])
def test_linux_driver_fix_for_the_distribution(tmp_path: Path, name: str, family: str,
                                               command: str) -> None:
    os_release = tmp_path / "os-release"
    os_release.write_text(OS_RELEASES[name])
    assert linux_distro(os_release) == family
    finding = make_finding("no-nvidia-driver", "NVML: no driver",
                           FixContext(platform="linux", distro=family))
    [install] = [s for s in finding.steps if s.command]
    assert command in install.command and install.admin and install.reboot
    assert install.argv == ()  # root and a reboot: never one click


def test_unknown_distribution_lists_every_family(tmp_path: Path) -> None:
    os_release = tmp_path / "os-release"
    os_release.write_text(OS_RELEASES["arch"])
    assert linux_distro(os_release) is None and linux_distro(tmp_path / "missing") is None
    steps = [s for s in make_finding("no-nvidia-driver", "x", FixContext("linux")).steps
             if s.command]
    assert len(steps) == 4 and all(s.admin and s.reboot for s in steps)
    rebuild = make_finding("driver-not-loaded", "x", FixContext("linux", distro="fedora"))
    assert [s.admin for s in rebuild.steps] == [True, True]
    assert "akmods --force" in _commands(rebuild)


def test_windows_driver_step_is_marked_admin_and_reboot() -> None:
    [step, _] = make_finding("no-nvidia-driver", "x", FixContext("windows")).steps
    assert step.admin and step.reboot


KERAS_PS = ("import tensorflow as tf\nstrategy = tf.distribute.ParameterServerStrategy(r)\n"
            "model.fit(ds)\n")


def test_keras3_with_tf_keras_installed_only_sets_the_variable(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(KERAS_PS)
    [finding] = scan_script(script, tf_version="2.21.0", env={},
                            packages={"keras": "3.15.1", "tf-keras": "2.21.0"})
    text = _commands(finding)
    assert "TF_USE_LEGACY_KERAS=1" in text and "tf-keras 2.21.0" in text
    assert "pip" not in text


def test_tf1_finding_names_removed_modules_the_script_imports(tmp_path: Path) -> None:
    script = tmp_path / "mnist.py"
    script.write_text("import tensorflow as tf\n"
                      "import tensorflow.contrib.slim as slim\n"
                      "from tensorflow.examples.tutorials.mnist import input_data\n"
                      "x = tf.placeholder(tf.float32)\n")
    [finding] = scan_script(script, tf_version="2.15.0")
    assert finding.id == "tf1-api-on-tf2"
    assert "tensorflow.contrib, tensorflow.examples" in finding.title
    assert "mnist.py:3: tf.examples.tutorials.mnist" in finding.evidence
    text = _commands(finding)
    assert "tf.keras.datasets.mnist.load_data()" in text and "tf-slim" in text
