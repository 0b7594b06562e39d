"""The environment a task gets when it runs an interpreter directly, without ``conda activate``.

A conda env's CUDA/cuDNN DLLs live in ``<env>\\Library\\bin``, which is on PATH only after
activation: starting ``<env>\\python.exe`` bare recreates the classic "Could not load dynamic
library 'cudart64_110.dll'" failure. So the launcher adds what activation adds. Activation
scripts in ``etc/conda/activate.d`` are not run (they need a shell); the doctor can point at
them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.interpreters.layout import env_layout


def _conda_dirs(prefix: Path, platform: str) -> list[Path]:
    if platform == "win32":
        # The order of conda's own activation (conda/shell/condabin/conda.bat, activate.py).
        return [
            prefix,
            prefix / "Library" / "mingw-w64" / "bin",
            prefix / "Library" / "usr" / "bin",
            prefix / "Library" / "bin",
            prefix / "Scripts",
            prefix / "bin",
        ]
    return [prefix / "bin"]


def _key(env: Mapping[str, str], name: str, platform: str) -> str:
    """The spelling of ``name`` already in ``env`` (Windows variables ignore case: Path/PATH)."""
    if platform == "win32":
        return next((k for k in env if k.upper() == name), name)
    return name


def _prepend(
    env: dict[str, str], name: str, dirs: list[Path], platform: str, drop: Sequence[Path] = ()
) -> None:
    sep = ";" if platform == "win32" else ":"
    key = _key(env, name, platform)
    new = [str(d) for d in dirs]
    unwanted = {os.path.normcase(p) for p in [*new, *map(str, drop)]}
    old = [p for p in env.get(key, "").split(sep) if p and os.path.normcase(p) not in unwanted]
    env[key] = sep.join(new + old)


def activation_env(
    python: str, base_env: Mapping[str, str], platform: str = sys.platform
) -> dict[str, str]:
    """``base_env`` plus what activating ``python``'s conda env or venv would set."""
    env = dict(base_env)
    layout = env_layout(python, platform)
    if layout.kind == "conda":
        # Like `conda activate` (without --stack): the previously active env's folders go.
        old = env.get(_key(env, "CONDA_PREFIX", platform))
        previous = _conda_dirs(Path(old), platform) if old else []
        _prepend(env, "PATH", _conda_dirs(layout.prefix, platform), platform, previous)
        if platform != "win32":
            # TF's conda instructions add <env>/lib (they append; first place makes the env's
            # CUDA libraries win over an older system copy on LD_LIBRARY_PATH).
            _prepend(env, "LD_LIBRARY_PATH", [layout.prefix / "lib"], platform)
        env[_key(env, "CONDA_PREFIX", platform)] = str(layout.prefix)
        env[_key(env, "CONDA_DEFAULT_ENV", platform)] = layout.name or str(layout.prefix)
    elif layout.kind == "venv":
        scripts = layout.prefix / ("Scripts" if platform == "win32" else "bin")
        _prepend(env, "PATH", [scripts, *nvidia_wheel_dirs(layout.prefix, platform)], platform)
        env[_key(env, "VIRTUAL_ENV", platform)] = str(layout.prefix)
        env.pop(_key(env, "PYTHONHOME", platform), None)  # venv activate scripts unset it too
    return env


def nvidia_wheel_dirs(prefix: Path, platform: str = sys.platform) -> list[Path]:
    """The DLL folders of NVIDIA's CUDA pip wheels in a Windows venv
    (``Lib\\site-packages\\nvidia\\<library>\\bin``, e.g. nvidia-cuda-runtime-cu11's
    cudart64_110.dll). TF 2.10 loads its CUDA DLLs from PATH only, as from a conda env's
    Library\\bin; on Linux, TF 2.14+ finds its wheels' libraries itself."""
    if platform != "win32":
        return []
    return sorted(p for p in (prefix / "Lib" / "site-packages" / "nvidia").glob("*/bin")
                  if p.is_dir())


def dll_search_dirs(python: str, platform: str = sys.platform) -> list[Path]:
    """The existing folders :func:`activation_env` puts on the library search path
    (PATH on Windows, LD_LIBRARY_PATH elsewhere), in search order."""
    layout = env_layout(python, platform)
    if layout.kind == "conda":
        dirs = _conda_dirs(layout.prefix, platform) if platform == "win32" else [
            layout.prefix / "lib"
        ]
    elif layout.kind == "venv" and platform == "win32":
        dirs = [layout.prefix / "Scripts", *nvidia_wheel_dirs(layout.prefix, platform)]
    else:
        dirs = []
    return [d for d in dirs if d.is_dir()]


def _inside(path: str, root: str) -> bool:
    """Whether absolute ``path`` is ``root`` or under it (relative entries are never inside:
    a shortcut may start the app with its own folder as the working directory)."""
    if not os.path.isabs(path):
        return False
    path = os.path.normcase(os.path.abspath(path))
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def clean_base_env(
    env: Mapping[str, str] | None = None,
    *,
    frozen: bool | None = None,
    bundle_dir: str | None = None,
) -> dict[str, str]:
    """A copy of ``env`` (default ``os.environ``) without a PyInstaller bundle's own changes.

    A frozen app's bootloader prepends its folder to ``LD_LIBRARY_PATH`` (``LIBPATH`` on AIX)
    and saves the original as ``LD_LIBRARY_PATH_ORIG`` (PyInstaller docs, "The Bootstrap
    Process in Detail"); a child must get the original, or none when there was none. Any PATH
    entry inside the bundle goes too, and the bootloader's private ``_PYI_*``/``_MEIPASS2``
    variables. (On Windows the bootloader's ``SetDllDirectory`` is process state, not
    environment: the supervisor resets it before spawning.)
    """
    env = dict(os.environ if env is None else env)
    frozen = getattr(sys, "frozen", False) if frozen is None else frozen
    if not frozen:
        return env
    _restore_library_paths(env)
    bundle = bundle_dir if bundle_dir is not None else getattr(sys, "_MEIPASS", None)
    if bundle:
        _drop_bundle_entries(env, bundle)
    for key in [k for k in env if k.startswith("_PYI_") or k == "_MEIPASS2"]:
        del env[key]
    return env


def _restore_library_paths(env: dict[str, str]) -> None:
    """Undo the bootloader's library path in ``env``: the value it saved as ``*_ORIG``, or no
    variable when there was none."""
    for name in ("LD_LIBRARY_PATH", "LIBPATH"):
        original = env.pop(name + "_ORIG", None)
        if original is not None:
            env[name] = original
        else:
            env.pop(name, None)


def _drop_bundle_entries(env: dict[str, str], bundle: str) -> None:
    """Remove the entries inside ``bundle`` from every path list in ``env``: PATH, and those
    the window's Qt runtime hook sets (QT_PLUGIN_PATH, QML2_IMPORT_PATH): a task's own Qt must
    not load the app's plugins. A variable left with no entry goes."""
    root = os.path.normcase(os.path.abspath(bundle))
    for key, value in list(env.items()):
        entries = value.split(os.pathsep)
        if not any(_inside(p, root) for p in entries):
            continue
        kept = [p for p in entries if p and not _inside(p, root)]
        if kept:
            env[key] = os.pathsep.join(kept)
        else:
            del env[key]
