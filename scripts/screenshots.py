"""Render every view and the wizard's pages to PNG, in English and Simplified Chinese, under
docs/screenshots/ (offscreen; Chinese needs a CJK font, e.g. Debian's fonts-noto-cjk).

The Machine view shows two H200 GPUs as NVML reported them on a Linux GPU machine (recorded in
tests/data/nvml) and this machine's real interpreters and findings; the Run view shows a real
short run of a demo job (two workers printing Keras-style progress).

Run: python scripts/screenshots.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from core.gpu import read_gpus  # noqa: E402
from gui.app import make_app  # noqa: E402
from gui.i18n import install_translators  # noqa: E402
from gui.settings import Settings  # noqa: E402
from tests.nvml_replay import ReplayNvml  # noqa: E402

DEMO = """
import random, sys, time
random.seed(sys.argv[-1])
for epoch in range(1, 4):
    print(f"Epoch {epoch}/3", flush=True)
    for batch in (10, 20):
        loss = 1.0 / (epoch + batch / 20) + random.random() * 0.05
        print(f"{batch}/20 [==============================] - 0s 5ms/step - loss: {loss:.4f}"
              f" - accuracy: {1 - loss / 2:.4f}", flush=True)
        time.sleep(0.2)
print("saved model to model.keras")
"""


def settle(app: QApplication, seconds: float = 0.3) -> None:
    """Let layouts, timers and queued signals run."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def save(widget: QWidget, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(path))
    print(path)


def demo_job(folder: Path) -> Path:
    (folder / "demo.py").write_text(DEMO)
    config = folder / "demo.json"
    config.write_text(json.dumps({
        "name": "demo", "strategy": "multi_worker_mirrored", "script": "demo.py",
        "args": ["{task_index}"], "tasks": [{"role": "worker", "count": 2}],
        "env": {"TF_CPP_MIN_LOG_LEVEL": "1"}, "stop_grace_seconds": 3}, indent=2))
    return config


def shoot(app: QApplication, language: str, out: Path, folder: Path) -> None:
    from gui.main_window import MainWindow
    from gui.wizard import ConfigWizard

    install_translators(app, language)
    nvml = ReplayNvml.load("h200x2_linux")
    settings = Settings(QSettings(str(folder / f"settings-{language}.ini"),
                                  QSettings.Format.IniFormat))
    window = MainWindow(settings, nvml=nvml, gpu_feed=False)
    window.resize(1280, 820)
    window.show()
    window.show_page("machine")
    while window.machine.checking:
        settle(app, 0.2)
    settle(app)
    save(window, out / f"{language}-machine.png")

    window.open_file(str(demo_job(folder)))
    settle(app)
    save(window, out / f"{language}-cluster.png")
    window.cluster.name.setText("bad/name")
    settle(app)
    save(window, out / f"{language}-cluster-invalid.png")
    window.cluster.name.setText("demo")
    settle(app)

    window.start_run()
    report = read_gpus(nvml, processes=False)
    now = time.time()
    for t in range(300):
        window.run_view.gpu_charts.add_sample(now - 300 + t, report.gpus)
    while window.run_view.running:
        settle(app, 0.2)
    settle(app, 0.5)
    run = window.run_view
    for tab, name in ((run.logs, "run-logs"), (run.metric_charts, "run-metrics"),
                      (run.gpu_charts, "run-gpus")):
        run.tabs.setCurrentWidget(tab)
        settle(app)
        save(window, out / f"{language}-{name}.png")

    window.show_page("history")
    settle(app, 1.0)
    save(window, out / f"{language}-history.png")

    wizard = ConfigWizard(window, look=False)
    wizard.tasks_page.set_machine_gpus([(g.index, g.name or "GPU") for g in report.gpus])
    wizard.interpreter_page.set_interpreters([sys.executable])
    wizard.interpreter_page.status.setText(
        wizard.interpreter_page.tr("Python {version} with TensorFlow {tf}.").format(
            version="3.11.7", tf="2.21.0"))
    wizard.resize(820, 620)
    wizard.show()
    pages = ("wizard-1-interpreter", "wizard-2-strategy", "wizard-3-tasks", "wizard-4-script",
             "wizard-5-review")
    for index, name in enumerate(pages):
        if name == "wizard-2-strategy":
            wizard.strategy_page.buttons["parameter_server"].setChecked(True)
        elif name == "wizard-4-script":
            wizard.script_page.script.setText(str(folder / "train_ps.py"))
            wizard.script_page.args.setText("--steps 300")
        elif name == "wizard-5-review":
            wizard.review_page.name.setText("quickstart")
        settle(app)
        save(wizard, out / f"{language}-{name}.png")
        if index < len(pages) - 1:
            wizard.next()
    wizard.close()
    window.cluster.dirty = False
    window.close()
    window.deleteLater()
    settle(app)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    args = parser.parse_args()
    app = make_app()
    with tempfile.TemporaryDirectory() as tmp:
        for language in ("en", "zh_CN"):
            folder = Path(tmp) / language
            folder.mkdir()
            shoot(app, language, Path(args.out), folder)


if __name__ == "__main__":
    main()
