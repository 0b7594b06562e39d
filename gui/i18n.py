"""English and Simplified Chinese: Qt translation files (``translations/tensordeck_<lang>.qm``),
chosen from the settings or, by default, the system language."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from core import messages

TRANSLATIONS = Path(__file__).resolve().parent / "translations"
#: Language code -> its name in that language (what the settings menu lists).
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
SYSTEM = "system"


def resolve_language(choice: str, system: QLocale | None = None) -> str:
    """``system`` -> the supported language closest to the system's; else the choice itself."""
    if choice in LANGUAGES:
        return choice
    locale = system or QLocale.system()
    return "zh_CN" if locale.language() == QLocale.Language.Chinese else "en"


def install_translators(app: QApplication, choice: str) -> str:
    """Load TensorDeck's and Qt's own (dialog buttons) translations; returns the language used.

    The translators are parented to ``app`` so they live as long as it does."""
    language = resolve_language(choice)
    messages.set_language(language)  # what the core says, in the same language
    for old in app.findChildren(QTranslator):
        app.removeTranslator(old)
        old.deleteLater()
    if language == "en":
        return language
    ours = QTranslator(app)
    if ours.load(str(TRANSLATIONS / f"tensordeck_{language}.qm")):
        app.installTranslator(ours)
    qt_own = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_own.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qt_own)
    return language


def state_label(state: str) -> str:
    """A task or run state in the UI language (states are English words in core)."""
    labels = {
        "pending": QCoreApplication.translate("State", "pending"),
        "running": QCoreApplication.translate("State", "running"),
        "restarting": QCoreApplication.translate("State", "restarting"),
        "succeeded": QCoreApplication.translate("State", "succeeded"),
        "failed": QCoreApplication.translate("State", "failed"),
        "stopped": QCoreApplication.translate("State", "stopped"),
        "interrupted": QCoreApplication.translate("State", "interrupted"),
        "abandoned": QCoreApplication.translate("State", "abandoned"),
        "unreadable": QCoreApplication.translate("State", "unreadable"),
        "stopping": QCoreApplication.translate("State", "stopping"),
        "idle": QCoreApplication.translate("State", "not started"),
    }
    return labels.get(state, state)


def core_text(text: str) -> str:
    """A message of the core (a problem, a reason read from a run folder) in the UI
    language, when :mod:`core.messages` knows it; else as the core said it."""
    return messages.translate_text(text)


def kind_label(kind: str) -> str:
    """What kind of interpreter it is (core.interpreters.discover's word) in the UI language."""
    message_id = f"kind.{kind}"
    return messages.tr(message_id) if message_id in messages.CATALOGUE else kind
