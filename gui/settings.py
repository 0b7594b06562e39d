"""What the window remembers between starts (QSettings): language, recent files, the last
folders, window geometry, and whether the first-start wizard was shown."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 8


class Settings:
    """Typed access to the app's QSettings. ``store`` is injectable (tests use an ini file)."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store or QSettings("TensorDeck", "TensorDeck")

    def _get(self, key: str, default, kind=str):
        value = self.store.value(key, default)
        if kind is bool and isinstance(value, str):  # ini files give "true"/"false"
            return value.lower() == "true"
        try:
            return kind(value) if value is not None else default
        except (TypeError, ValueError):
            return default

    @property
    def language(self) -> str:
        return self._get("ui/language", "system")

    @language.setter
    def language(self, value: str) -> None:
        self.store.setValue("ui/language", value)

    @property
    def wizard_done(self) -> bool:
        return self._get("ui/wizard_done", False, bool)

    @wizard_done.setter
    def wizard_done(self, value: bool) -> None:
        self.store.setValue("ui/wizard_done", value)

    def recent_files(self) -> list[str]:
        value = self.store.value("files/recent", [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        return [str(v) for v in value or []]

    def add_recent_file(self, path: str) -> list[str]:
        recent = [path] + [p for p in self.recent_files() if p != path]
        recent = recent[:MAX_RECENT]
        self.store.setValue("files/recent", recent)
        return recent

    def remove_recent_file(self, path: str) -> None:
        self.store.setValue("files/recent", [p for p in self.recent_files() if p != path])

    def last_folder(self, kind: str) -> str:
        return self._get(f"files/last_{kind}", "")

    def set_last_folder(self, kind: str, folder: str) -> None:
        self.store.setValue(f"files/last_{kind}", folder)

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        return self.store.value("window/geometry"), self.store.value("window/state")

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.store.setValue("window/geometry", geometry)
        self.store.setValue("window/state", state)
