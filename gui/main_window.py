"""The main window: a navigation bar (Machine, Cluster, Run, History), the menus (File, Run,
Settings), recent files, drag and drop of config files, the tray notification at the end of a
run, and the remembered window state."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QProcess, QSize, Qt
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QBoxLayout,
    QFileDialog,
    QListView,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QStyle,
    QSystemTrayIcon,
    QWidget,
)

from core.config import ConfigError, load_config
from gui.background import run_in_background
from gui.bridge import GpuFeed
from gui.i18n import LANGUAGES, SYSTEM
from gui.settings import Settings
from gui.views.cluster import ClusterView
from gui.views.field_problems import problem_text
from gui.views.history import HistoryView
from gui.views.machine import MachineView
from gui.views.run import RunView

if TYPE_CHECKING:  # SSH's stack loads when the LAN is first checked
    from core.remote.preflight import PreflightReport
    from gui.preflight_dialog import PreflightDialog

PAGES = ("machine", "cluster", "run", "history")
#: The window's size at the first start, where the screen has room for it.
FIRST_SIZE = (1280, 820)
NAV_WIDTH = 170
#: Below this width the navigation goes above the pages (the Run view needs ~640 pixels).
NARROW_WIDTH = 900
QWIDGETSIZE_MAX = 16_777_215


def _scrollable(view: QWidget) -> QScrollArea:
    """A page that scrolls when the window is smaller than the page's smallest size."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(view)
    return area


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings | None = None, *, nvml: object = None,
                 gpu_feed: bool = True) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.setWindowTitle("TensorDeck")
        self.setAcceptDrops(True)
        self.resize(*FIRST_SIZE)
        #: The command that starts TensorDeck again after a language switch (this process's).
        self.restart_command: list[str] = list(sys.orig_argv)
        self.machine = MachineView(nvml=nvml)
        self.cluster = ClusterView()
        self.run_view = RunView()
        self.history = HistoryView()
        #: Whether preflight imports TensorFlow on every machine (slow; tests switch it off).
        self.preflight_import_tf = True
        self.preflight_dialog: PreflightDialog | None = None
        self.nav = QListWidget()
        self.nav.setObjectName("nav")
        self.nav.setIconSize(QSize(18, 18))
        self.nav.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stack = QStackedWidget()
        style = self.style()
        pix = QStyle.StandardPixmap
        icons = (pix.SP_ComputerIcon, pix.SP_FileDialogDetailedView, pix.SP_MediaPlay,
                 pix.SP_FileDialogContentsView)
        names = (self.tr("Machine"), self.tr("Cluster"), self.tr("Run"), self.tr("History"))
        for name, icon, view in zip(names, icons,
                                    (self.machine, self.cluster, self.run_view, self.history),
                                    strict=True):
            self.nav.addItem(name)
            self.nav.item(self.nav.count() - 1).setIcon(style.standardIcon(icon))
            self.stack.addWidget(_scrollable(view))
        self.nav.currentRowChanged.connect(self._on_page)
        central = QWidget()
        self._frame = QBoxLayout(QBoxLayout.Direction.LeftToRight, central)
        self._frame.setContentsMargins(0, 0, 0, 0)
        self._frame.setSpacing(0)
        self._frame.addWidget(self.nav)
        self._frame.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self._place_nav()

        self._build_menus()
        self.tray = self._make_tray()
        self.gpu_feed = GpuFeed(self, nvml=nvml) if gpu_feed else None
        self._feed_started = False
        if self.gpu_feed is not None:
            self.gpu_feed.sample.connect(self.machine.update_sample)
            self.gpu_feed.sample.connect(self.run_view.show_gpu_sample)
        self.machine.gpus_found.connect(self.cluster.set_machine_gpus)
        self.machine.interpreters_found.connect(self.cluster.set_interpreters)
        self.machine.use_interpreter.connect(self._use_interpreter)
        self.cluster.changed.connect(self._update_title)
        self.run_view.start_requested.connect(self.start_run)
        self.cluster.preflight_requested.connect(self.preflight)
        self.run_view.run_finished.connect(self._on_run_finished)
        self.run_view.progress_changed.connect(self._update_title)
        self.history.rerun.connect(self._rerun)
        self.history.set_folders(self._history_folders())
        self._restore_state()
        self._fit_to_screen()
        self.show_page("cluster")
        self._update_title()

    # --- pages --------------------------------------------------------------------------------

    def _use_interpreter(self, path: str) -> None:
        """A Machine view card's "Use for this job": the job's interpreter, shown where it is
        edited."""
        self.cluster.use_interpreter(path)
        self.show_page("cluster")

    def show_page(self, name: str) -> None:
        self.nav.setCurrentRow(PAGES.index(name))

    def current_page(self) -> str:
        return PAGES[self.stack.currentIndex()]

    def _on_page(self, row: int) -> None:
        self.stack.setCurrentIndex(row)
        if PAGES[row] == "history":
            self.history.set_folders(self._history_folders())
            self.history.refresh()
        elif PAGES[row] == "machine" and self.machine.report is None:
            self.machine.refresh()

    # --- menus --------------------------------------------------------------------------------

    def _action(self, text: str, slot, shortcut: QKeySequence | str | None = None) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(shortcut)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        file_menu.addAction(self._action(self.tr("&New (wizard)…"), self.new_config,
                                         QKeySequence.StandardKey.New))
        file_menu.addAction(self._action(self.tr("&Open…"), self.open_dialog,
                                         QKeySequence.StandardKey.Open))
        self.recent_menu = file_menu.addMenu(self.tr("Open &recent"))
        file_menu.addAction(self._action(self.tr("&Save"), self.save,
                                         QKeySequence.StandardKey.Save))
        file_menu.addAction(self._action(self.tr("Save &as…"), self.save_as,
                                         QKeySequence.StandardKey.SaveAs))
        file_menu.addSeparator()
        file_menu.addAction(self._action(self.tr("&Quit"), self.close,
                                         QKeySequence.StandardKey.Quit))
        run_menu = self.menuBar().addMenu(self.tr("&Run"))
        run_menu.addAction(self._action(self.tr("&Start"), self.start_run, "F5"))
        run_menu.addAction(self._action(self.tr("S&top"), self.run_view.stop, "Shift+F5"))
        settings_menu = self.menuBar().addMenu(self.tr("&Settings"))
        self.language_menu = settings_menu.addMenu(self.tr("&Language"))
        languages = QActionGroup(self)  # one choice ticked at a time
        current = self.settings.language
        for code, label in ((SYSTEM, self.tr("System language")), *LANGUAGES.items()):
            action = self._action(label, lambda _=False, c=code: self._set_language(c))
            action.setCheckable(True)
            action.setChecked(code == current)
            languages.addAction(action)
            self.language_menu.addAction(action)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        help_menu.addAction(self._action(self.tr("&About TensorDeck"), self._about))
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        for path in recent:
            self.recent_menu.addAction(
                self._action(path, lambda _=False, p=path: self.open_file(p)))
        self.recent_menu.setEnabled(bool(recent))

    def _set_language(self, code: str) -> None:
        """Remember the language and offer to restart in it now (every window's text is
        made when it opens)."""
        if code == self.settings.language:
            return
        self.settings.language = code
        answer = QMessageBox.question(
            self, self.tr("Language"),
            self.tr("TensorDeck shows the new language after a restart. Restart now?"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        if answer == QMessageBox.StandardButton.Yes and self.close():
            QProcess.startDetached(self.restart_command[0], self.restart_command[1:])

    def _about(self) -> None:
        from core import __version__

        QMessageBox.about(self, self.tr("About TensorDeck"), self.tr(
            "TensorDeck {version}\nLaunch, watch and diagnose TensorFlow training.").format(
            version=__version__))

    # --- files --------------------------------------------------------------------------------

    def _confirm_discard(self) -> bool:
        if not self.cluster.dirty:
            return True
        answer = QMessageBox.question(
            self, self.tr("Unsaved changes"),
            self.tr("The config has unsaved changes. Save them first?"),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_config(self) -> None:
        if not self._confirm_discard():
            return
        from gui.wizard import ConfigWizard

        wizard = ConfigWizard(self)
        if self.machine.report is not None:
            wizard.set_machine_gpus([(g.index, g.name or "GPU") for g in self.machine.report.gpus])
        self.settings.wizard_done = True
        try:
            if wizard.exec() == ConfigWizard.DialogCode.Accepted:
                self.apply_wizard(wizard)
        finally:
            # Deleted by Qt, on this thread: left to Python's garbage collector, the wizard's
            # reference cycles freed widgets Qt still owned (exit 139, issue 12).
            wizard.deleteLater()

    def apply_wizard(self, wizard) -> Path | None:
        """Load the wizard's config into the forms, save it where the review page says (its
        folder made if needed; an existing file was confirmed there), and run it if asked."""
        self.cluster.load(wizard.config(), None)
        target = wizard.review_page.target()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if (example := wizard.example_copy()) is not None:
                shutil.copyfile(*example)
            saved = self.cluster.save(target)
        except OSError as exc:
            self.show_page("cluster")
            QMessageBox.warning(self, self.tr("Not saved"), self.tr(
                "{path} could not be saved ({error}); nothing was started. The config is in "
                "the Cluster view: save it elsewhere with File > Save as.").format(
                path=target, error=exc.strerror or exc))
            return None
        self._remember(saved)
        if wizard.review_page.run_now.isChecked():
            self.start_run()
        else:
            self.show_page("cluster")
        return saved

    def open_dialog(self) -> None:
        if not self._confirm_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a config"),
                                              self.settings.last_folder("config"),
                                              self.tr("TensorDeck config (*.json)"))
        if path:
            self.open_file(path)

    def open_file(self, path: str) -> bool:
        try:
            self.cluster.load_file(path)
        except ConfigError as exc:
            QMessageBox.warning(self, self.tr("Cannot open"), "\n".join(
                f"{exc.source}: {problem_text(p)}" for p in exc.problems))
            self.settings.remove_recent_file(path)
            self._fill_recent()
            return False
        self._remember(Path(path).resolve())
        self.show_page("cluster")
        return True

    def save(self) -> bool:
        if self.cluster.path is None:
            return self.save_as()
        try:
            self._remember(self.cluster.save())
        except OSError as exc:
            QMessageBox.warning(self, self.tr("Not saved"), str(exc))
            return False
        return True

    def save_as(self) -> bool:
        from gui.wizard import default_config_folder

        folder = self.settings.last_folder("config")
        start = str(self.cluster.path or (Path(folder) if folder else default_config_folder(
            self.cluster.script_path())) / "job.json")
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the config"), start,
                                              self.tr("TensorDeck config (*.json)"))
        if not path:
            return False
        try:
            self._remember(self.cluster.save(path))
        except OSError as exc:
            QMessageBox.warning(self, self.tr("Not saved"), str(exc))
            return False
        return True

    def _remember(self, path: Path) -> None:
        self.settings.add_recent_file(str(path))
        self.settings.set_last_folder("config", str(path.parent))
        self._fill_recent()
        self._update_title()

    def _history_folders(self) -> list[str]:
        folders = [str(Path(p).parent) for p in self.settings.recent_files()]
        if self.cluster.path is not None:
            folders.insert(0, str(self.cluster.path.parent))
        return folders

    def _update_title(self) -> None:
        name = self.cluster.path.name if self.cluster.path else self.tr("new config")
        progress = f"[{self.run_view.progress_text}] " if self.run_view.progress_text else ""
        self.setWindowTitle(f"{progress}{name}{' *' if self.cluster.dirty else ''} — TensorDeck")
        self.run_view.set_config(str(self.cluster.path) if self.cluster.path else None)
        self.run_view.set_machines(*self.cluster.machines())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].toLocalFile().lower().endswith(".json"):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = event.mimeData().urls()
        if urls and self._confirm_discard():
            self.open_file(urls[0].toLocalFile())
            event.acceptProposedAction()

    # --- runs ---------------------------------------------------------------------------------

    def start_run(self) -> None:
        """Save the forms (the run reads the file, as the CLI would), then start."""
        if self.run_view.running:
            self.show_page("run")
            return
        if not self._saved_valid_config():
            return
        self.show_page("run")
        self.run_view.start(self.cluster.path)

    def _saved_valid_config(self) -> bool:
        """Whether the forms are valid and saved: runs and preflight read the file, as the CLI
        would. Unsaved edits are saved over the file only when the user says so."""
        problems = self.cluster.validate()
        if problems:
            self.show_page("cluster")
            QMessageBox.warning(self, self.tr("Fix the config first"),
                                "\n".join(map(problem_text, problems)))
            return False
        if self.cluster.path is None:
            return self.save_as()
        if not self.cluster.dirty:
            return True
        answer = QMessageBox.question(
            self, self.tr("Save the changes?"),
            self.tr("The run reads the config file. Save your changes to {path} first?").format(
                path=self.cluster.path),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        return answer == QMessageBox.StandardButton.Save and self.save()

    def preflight(self) -> None:
        """Check the config's machines off the GUI thread, then show the report."""
        if not self._saved_valid_config():
            return
        path = self.cluster.path
        import_tf = self.preflight_import_tf
        button = self.cluster.preflight_button
        button.setEnabled(False)
        button.setText(self.tr("Checking the machines…"))

        # SSH (asyncssh, cryptography: 0.2 s) is loaded when the LAN is first checked.
        from core.remote.preflight import run_preflight
        from gui.preflight_dialog import PreflightDialog

        def check() -> PreflightReport:
            return run_preflight(load_config(path), path, import_tf=import_tf)

        def finish() -> None:
            button.setText(self.tr("Preflight"))
            button.setEnabled(bool(self.cluster.nodes.names()))

        def show(report: PreflightReport) -> None:
            finish()
            self.preflight_dialog = PreflightDialog(report, self)
            self.preflight_dialog.open()

        def failed(exc: BaseException) -> None:
            finish()
            QMessageBox.warning(self, self.tr("Preflight"), str(exc))

        run_in_background(check, show, failed)

    def _rerun(self, config_path: str, run_dir: str) -> None:
        """History's Run again: that run's own config (a copy), not the forms' file."""
        self.show_page("run")
        if self.run_view.running:
            QMessageBox.information(self, self.tr("Run again"), self.tr(
                "A run started from this window is going on: stop it, or wait until it ends, "
                "then press Run again."))
            return
        self.run_view.start(config_path, run_dir)

    def _on_run_finished(self, name: str, status: str, run_dir: str) -> None:
        if self.tray is None:
            return
        icon = (QSystemTrayIcon.MessageIcon.Information if status == "succeeded"
                else QSystemTrayIcon.MessageIcon.Warning)
        self.tray.showMessage(self.tr("TensorDeck: {name} {status}").format(
            name=name, status=status), run_dir, icon, 8000)

    def _make_tray(self) -> QSystemTrayIcon | None:
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return None
        icon = self.windowIcon()
        if icon.isNull():
            icon = self.style().standardIcon(QStyle.StandardPixmap.SP_ComputerIcon)
        tray = QSystemTrayIcon(icon, self)
        tray.show()
        return tray

    # --- state --------------------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_nav()

    def _place_nav(self) -> None:
        """The navigation at the left, or above the page in a narrow window, where the pages
        need all the width (Start and Stop sit at the right of the Run view)."""
        narrow = self.width() < NARROW_WIDTH
        self._frame.setDirection(QBoxLayout.Direction.TopToBottom if narrow
                                 else QBoxLayout.Direction.LeftToRight)
        self.nav.setFlow(QListView.Flow.LeftToRight if narrow else QListView.Flow.TopToBottom)
        if narrow:
            self.nav.setMinimumWidth(0)
            self.nav.setMaximumWidth(QWIDGETSIZE_MAX)
            self.nav.setFixedHeight(self.nav.sizeHintForRow(0) + 2 * self.nav.frameWidth())
        else:
            self.nav.setMinimumHeight(0)
            self.nav.setMaximumHeight(QWIDGETSIZE_MAX)
            self.nav.setFixedWidth(NAV_WIDTH)

    def _fit_to_screen(self) -> None:
        """Keep the window (first start or remembered) on its screen's free area: a small
        screen or 150% scaling must not push Start off screen (the pages scroll instead)."""
        area = self.screen().availableGeometry()
        # Room for the title bar and borders, which the window manager adds after show.
        width = min(self.width(), int(area.width() * 0.96))
        height = min(self.height(), int(area.height() * 0.92))
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        if not area.contains(self.frameGeometry()):
            self.move(area.left() + (area.width() - width) // 2,
                      area.top() + (area.height() - height) // 3)

    def _restore_state(self) -> None:
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.gpu_feed is not None and not self._feed_started:
            self._feed_started = True
            self.gpu_feed.start()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.run_view.running:
            answer = QMessageBox.question(
                self, self.tr("A run is going on"),
                self.tr("Closing TensorDeck stops the run and all its tasks. Close anyway?"))
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        if not self._confirm_discard():
            event.ignore()
            return
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.run_view.shutdown()
        finally:
            QApplication.restoreOverrideCursor()
        if self.gpu_feed is not None:
            self.gpu_feed.stop()
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        event.accept()

