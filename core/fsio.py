"""Every file TensorDeck writes for the user or the job: created private, written whole.

Such a file can hold the job's environment (``HF_TOKEN`` in a run's ``config.json``, a saved
config, an export, a cached checked config), so it is created 0600 (POSIX; on Windows the
folder's access list applies, which is private under the user's profile). A file is only ever
created under a new name, exclusively (``O_EXCL``, and ``O_NOFOLLOW`` where the OS has it): a
file or symlink someone planted there (``summary.json.tmp -> ~/.bashrc``) makes the write
fail instead of being written through. A whole file is written to a fresh temporary name
beside its target, flushed to the disk, then renamed over the target: a reader sees the old
file or the new one, never half of one, and a write that fails leaves no temporary file.

Also the rules for the places TensorDeck takes: no control character in a path or name given
to it (:func:`control_character_problem`), no folder of another user's to write in
(:func:`foreign_owner`), and a folder it claims made private (:func:`make_private`).
"""

from __future__ import annotations

import os
import stat
import sys
import time
from contextlib import suppress
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
#: Waits between tries of replacing a file a reader holds open (Windows).
REPLACE_RETRIES = (0.005, 0.01, 0.02, 0.05)
# O_BINARY: no newline translation on Windows; O_NOFOLLOW does not exist there.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WRITE = os.O_WRONLY | getattr(os, "O_BINARY", 0) | _NOFOLLOW
_CREATE = _WRITE | os.O_CREAT | os.O_EXCL
#: Characters of the target's name kept in its temporary name: at most 4 bytes each, so that
#: the temporary name stays within NAME_MAX (255 bytes) whatever the target's name.
_NAME_KEPT = 16


def create_private(path: str | Path, *, append: bool = False) -> int:
    """A new file at ``path``, open for writing (a descriptor, not inheritable): 0600, and
    FileExistsError when anything is there already, a symlink included."""
    return os.open(path, _CREATE | (os.O_APPEND if append else 0), PRIVATE_FILE)


def append_private(path: str | Path) -> int:
    """``path`` open for appending: made as :func:`create_private` makes it, or, when it is
    there (a restarted task's log), opened again without following a symlink."""
    try:
        return create_private(path, append=True)
    except FileExistsError:
        return os.open(path, _WRITE | os.O_APPEND)


def write_private(path: str | Path, data: bytes | str, *, keep_mode: bool = False) -> None:
    """Replace ``path`` with ``data`` (str: UTF-8, newlines as given) atomically; a new file is
    0600. ``keep_mode``: a file that is there keeps its permissions (a user's own document).
    What is at ``path`` is replaced, never written through: a symlink there is replaced too."""
    PendingWrite(path).commit(data, keep_mode=keep_mode)


def control_character_problem(path: str, *, relative_to_cwd: bool = True) -> str | None:
    """Why ``path`` is not taken: it holds a control character (a line break splits every
    line-based text the path reaches: the watchdog's frames, logs, shell lines), or, being
    relative, the current folder does (its name becomes part of the path). None: it is taken.
    ``relative_to_cwd``: False for a name that is no path."""
    from core.output import control_character, show

    if (shown := control_character(path)) is not None:
        fix = "rename it, or choose another path" if relative_to_cwd else "remove it"
        return f"contains the control character {shown}; {fix}"
    if not relative_to_cwd or os.path.isabs(path):
        return None
    try:
        here = os.getcwd()
    except OSError:  # the current folder was removed: the path itself is checked
        return None
    if (shown := control_character(here)) is not None:
        return (f"is in the current folder {show(here, None)}, whose name contains the control "
                f"character {shown}; give an absolute path, or run TensorDeck from another "
                "folder")
    return None


def foreign_owner(folder: str | Path) -> str | None:
    """Why TensorDeck must not write in ``folder``: it belongs to another user, who could
    swap what is written there for a symlink, or read it; None when it is this user's (POSIX:
    Windows gives no owner through os.stat, and its folders are private by their place)."""
    if not hasattr(os, "getuid"):
        return None
    owner = os.stat(folder).st_uid
    if owner == os.getuid():
        return None
    return (f"{folder} belongs to another user (uid {owner}), who could change or read what "
            "TensorDeck writes there; choose a folder of your own")


def make_private(folder: str | Path) -> None:
    """Make this user's ``folder`` 0700 (POSIX; on Windows a folder's access list comes from
    where it is, private under the user's profile, and is left as it is)."""
    if os.name != "nt" and stat.S_IMODE(os.stat(folder).st_mode) != PRIVATE_FOLDER:
        os.chmod(folder, PRIVATE_FOLDER)


class PendingWrite:
    """A write of ``path`` prepared now, done by :meth:`commit`: a new private file beside it,
    holding ``reserve`` bytes. :meth:`commit` fills it in place, so a disk that fills up
    meanwhile cannot stop a write of at most that size (except on copy-on-write file systems,
    btrfs or ZFS, where every write takes new blocks)."""

    def __init__(self, path: str | Path, reserve: int = 0) -> None:
        self.path = Path(path)
        self.reserve = reserve
        self.temp = self.path.with_name(
            f".{self.path.name[:_NAME_KEPT]}.{os.urandom(8).hex()}.tmp"
        )
        # Kept open until the commit: the file written is the one created, whatever the
        # folder's other users do to its name meanwhile.
        self._fd: int | None = create_private(self.temp)
        if reserve:
            try:
                _write_all(self._fd, bytes(reserve))
                os.fsync(self._fd)
            except BaseException:
                self.discard()
                raise

    def commit(self, data: bytes | str, *, keep_mode: bool = False) -> None:
        """Write ``data`` over what was reserved and rename it over the target; on any failure
        the temporary file is removed and the target is as it was."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        fd = self._fd
        if fd is None:
            raise ValueError(f"{self.path}: this write was already done or given up")
        try:
            if keep_mode:
                _copy_mode(self.path, fd)
            os.lseek(fd, 0, os.SEEK_SET)
            _write_all(fd, raw)
            if self.reserve > len(raw):
                os.ftruncate(fd, len(raw))  # shrinking takes no space
            os.fsync(fd)
            self._close()  # before the rename: Windows renames no open file
            _replace(self.temp, self.path)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Give up the write (and the space it held); the target is untouched."""
        with suppress(OSError):
            self._close()
        with suppress(OSError):
            os.unlink(self.temp)

    def _close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _copy_mode(path: Path, fd: int) -> None:
    """Give the file ``fd`` the permissions of the regular file at ``path``, if there is one
    (POSIX; on Windows a replaced file's access list comes from its folder)."""
    if sys.platform == "win32":
        return
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    if stat.S_ISREG(info.st_mode):
        os.fchmod(fd, stat.S_IMODE(info.st_mode))


def _replace(source: Path, target: Path) -> None:
    """os.replace. On Windows a file another process has open (History reading the summary)
    cannot be replaced: the read takes microseconds, so the replace is tried again."""
    for wait in REPLACE_RETRIES:
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if os.name != "nt":
                raise
            time.sleep(wait)
    os.replace(source, target)
