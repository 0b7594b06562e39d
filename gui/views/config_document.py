"""A config file being edited: the document as it was loaded, the keys the user edited since,
and what the forms said when it was last loaded or saved. What is saved is each edited key as
the forms say it and every other key as the file said it (values the forms cannot show, and
keys core does not know, included): a file opened and saved unedited stays as it was."""

from __future__ import annotations

from core.config import JobConfig
from core.jobfile import KEY_ORDER, default, in_file_order

#: Keys the forms leave out of the file while they hold core's default.
OMITTED_AT_DEFAULT = ("nodes", "address", "cross_device_ops", "slurm")


class ConfigDocument:
    """``raw``: the document as loaded (less the unknown keys removed since); ``edited``: the
    keys the user changed in the forms."""

    def __init__(self) -> None:
        self.raw: dict = {}
        self.edited: set[str] = set()
        # What the forms said when the document was loaded or saved: an edit undone by hand
        # (a value typed back) leaves nothing to save.
        self._clean_form: dict = {}
        self._clean_raw: dict = {}

    def load(self, data: dict) -> None:
        self.raw = dict(data)
        self.edited = set()

    def mark_clean(self, form: dict) -> None:
        """Loaded or saved: the forms say ``form``, and nothing is left to save."""
        self._clean_form = form
        self._clean_raw = dict(self.raw)

    def is_dirty(self, form: dict) -> bool:
        """A form says something else than when the document was loaded or saved, or a key
        was removed."""
        return self.raw != self._clean_raw or any(
            form[key] != self._clean_form.get(key) for key in self.edited)

    def merged(self, form: dict) -> dict:
        """The config file: each edited key as ``form`` says it, the others as loaded; keys in
        core's order, unknown keys kept after them."""
        data = dict(self.raw)
        for key in self.edited:
            if key in OMITTED_AT_DEFAULT and form[key] == default(JobConfig, key):
                data.pop(key, None)
            else:
                data[key] = form[key]
        return in_file_order(data)

    def unknown_keys(self) -> list[str]:
        """The document's top-level keys that core does not know (kept until removed)."""
        return [key for key in self.raw if key not in KEY_ORDER]

    def remove_unknown_keys(self) -> None:
        for key in self.unknown_keys():
            del self.raw[key]
