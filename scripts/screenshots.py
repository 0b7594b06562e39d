"""Render every view and the wizard's pages to PNG, in English and Simplified Chinese, under
docs/screenshots/ (offscreen; Chinese needs a CJK font, e.g. Debian's fonts-wqy-microhei or
fonts-noto-cjk); then the main views again as the first start sizes the window on a 1024x700
screen, at 100% and 150% scale (``*-1024x700-*.png``, ``*-1024x700-150-*.png``; each in a
child process, since the scale is fixed when Qt starts).

The Machine view shows two H200 GPUs as NVML reported them on a Linux GPU machine (recorded in
tests/data/nvml) and this machine's real interpreters and findings, and its "Explain an error…"
dialog a real TensorFlow output explained; the Run view shows a real
short run of a demo job (two workers printing Keras-style progress).

Run: python scripts/screenshots.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
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
    # A palette of 256 colours (a flat UI needs no more) and zlib's best: a fifth of the size.
    image = widget.grab().toImage().convertToFormat(
        QImage.Format.Format_Indexed8,
        Qt.ImageConversionFlag.ThresholdDither | Qt.ImageConversionFlag.AvoidDither)
    image.save(str(path), "PNG", 0)
    print(path)


def demo_job(folder: Path) -> Path:
    (folder / "demo.py").write_text(DEMO)
    config = folder / "demo.json"
    config.write_text(json.dumps({
        "name": "demo", "strategy": "multi_worker_mirrored", "script": "demo.py",
        "args": ["{task_index}"], "tasks": [{"role": "worker", "count": 2}],
        "env": {"TF_CPP_MIN_LOG_LEVEL": "1"}, "stop_grace_seconds": 3}, indent=2))
    return config


#: The small screen of the second pass, and its scales.
SMALL_SCREEN = (1024, 700)
SMALL_SCALES = ("1", "1.5")


def shoot(app: QApplication, language: str, out: Path, folder: Path, prefix: str = "",
          *, small: bool = False) -> None:
    """Every view to ``out/<language>-<prefix><view>.png``; ``small``: each view once, as the
    first start sizes the window on this screen, and the wizard's first two pages."""
    from gui.main_window import MainWindow

    install_translators(app, language)
    nvml = ReplayNvml.load("h200x2_linux")
    settings = Settings(QSettings(str(folder / f"settings-{language}.ini"),
                                  QSettings.Format.IniFormat))
    window = MainWindow(settings, nvml=nvml, gpu_feed=False)
    if not small:
        window.resize(1280, 820)
    window.show()
    name = f"{language}-{prefix}"
    window.show_page("machine")
    while window.machine.checking:
        settle(app, 0.2)
    settle(app)
    save(window, out / f"{name}machine.png")
    if not small:
        shoot_explain(app, window, out / f"{name}explain.png")

    window.open_file(str(demo_job(folder)))
    settle(app)
    while window.cluster.status.text() == window.cluster.tr(
            "Checking the interpreter, the ports and the doctor's pre-run checks…"):
        settle(app, 0.2)
    save(window, out / f"{name}cluster.png")
    if not small:
        window.cluster.name.setText("bad/name")
        settle(app)
        save(window, out / f"{name}cluster-invalid.png")
        window.cluster.name.setText("demo")
        window.cluster.save()  # Start would ask before saving the edits
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
    tabs = ((run.logs, "run-logs"), (run.metric_charts, "run-metrics"),
            (run.resources, "run-resources"))
    for tab, shot in tabs[:1] if small else tabs:
        run.tabs.setCurrentWidget(tab)
        settle(app)
        save(window, out / f"{name}{shot}.png")

    window.show_page("history")
    settle(app, 1.0)
    save(window, out / f"{name}history.png")
    shoot_wizard(app, window, [(g.index, g.name or "GPU") for g in report.gpus],
                 out / f"{name}wizard", folder, pages=2 if small else None)
    window.cluster.dirty = False
    window.close()
    window.deleteLater()
    settle(app)


def shoot_explain(app: QApplication, window: QWidget, path: Path) -> None:
    """The Machine view's "Explain an error…" on a real output: TensorFlow 2.10's import on
    Windows with MSVCP140_1.dll missing (tests/data/windows), explained by clicks."""
    window.machine.explain_button.click()
    dialog = window.machine.explain_dialog
    QApplication.clipboard().setText((REPO / "tests" / "data" / "windows" /
                                      "tf210_missing_msvcp140_1.txt").read_text(encoding="utf-8"))
    dialog.paste.paste()
    dialog.explain_button.click()
    while not dialog.explain_button.isEnabled():
        settle(app, 0.2)
    settle(app)
    save(dialog, path)
    dialog.close()


def shoot_wizard(app: QApplication, window: QWidget, gpus: list[tuple[int, str]],
                 stem: Path, folder: Path, pages: int | None = None) -> None:
    """The wizard's pages (the first ``pages``; None: all, at 820x620), answered for the
    quickstart job; the interpreter is really checked (TensorDeck's own Python)."""
    from gui.wizard import ConfigWizard

    (folder / "train_ps.py").write_text((REPO / "resources/examples/train_ps.py").read_text())
    wizard = ConfigWizard(window, look=False)
    wizard.set_machine_gpus(gpus)
    wizard.interpreter_page.set_interpreters([sys.executable])
    if pages is None:
        wizard.resize(820, 620)
    wizard.show()
    names = ("1-interpreter", "2-strategy", "3-machines", "4-tasks", "5-script",
             "6-review")[:pages]
    for index, page in enumerate(names):
        if page == "2-strategy":
            wizard.strategy_page.buttons["parameter_server"].setChecked(True)
        elif page == "5-script":
            wizard.script_page.script.setText(str(folder / "train_ps.py"))
            wizard.script_page.args.setText("--steps 300")
        elif page == "6-review":
            wizard.review_page.name.setText("quickstart")
        while not wizard.currentPage().isComplete():  # the interpreter check
            settle(app, 0.2)
        settle(app)
        save(wizard, Path(f"{stem}-{page}.png"))
        if index < len(names) - 1:
            wizard.next()
    wizard.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    parser.add_argument("--small", metavar="PREFIX", help=argparse.SUPPRESS)  # a child's pass
    args = parser.parse_args()
    app = make_app()
    with tempfile.TemporaryDirectory() as tmp:
        for language in ("en", "zh_CN"):
            folder = Path(tmp) / language
            folder.mkdir()
            shoot(app, language, Path(args.out), folder, args.small or "",
                  small=args.small is not None)
        if args.small is not None:
            return
        screen = Path(tmp) / "screen.json"  # the offscreen platform's one screen
        width, height = SMALL_SCREEN
        screen.write_text(json.dumps({"screens": [{"name": "small", "x": 0, "y": 0,
                                                   "width": width, "height": height,
                                                   "logicalDpi": 96, "dpr": 1}]}))
        for scale in SMALL_SCALES:
            prefix = f"{width}x{height}-" + ("" if scale == "1" else
                                             f"{round(float(scale) * 100)}-")
            # Qt splits platform arguments at ":": the file is named relative to the child's
            # folder, never with a drive ("C:\\...").
            env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen.name}",
                   "QT_SCALE_FACTOR": scale}
            subprocess.run([sys.executable, __file__, "--out", str(Path(args.out).resolve()),
                            "--small", prefix], env=env, cwd=tmp, check=True)


if __name__ == "__main__":
    main()
