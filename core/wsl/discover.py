"""The Pythons inside the WSL 2 distributions, each named ``wsl://DISTRO/path``.

One small script runs in each distribution (``-e python3 -c``; ``-e sh -c`` where there is no
python3) and lists, without starting any of them: python3 on the distribution's PATH, the
Miniconda / Anaconda / Miniforge / Mambaforge installs in the home folder and their envs, and
the venvs one level under the home folder (``~/NAME/pyvenv.cfg``). It prints one marked JSON
line; what it prints is bounded, and a path TensorDeck could not name is left out. Each Python
is then probed inside its distribution by the probe every interpreter gets
(:func:`core.interpreters.probe.cached_probe`).

Without wsl.exe nothing runs: a survey is then one PATH lookup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from core import bounded
from core.interpreters.probe import ProbeResult, cached_probe
from core.wsl.bounded_run import Overrun, run_bounded
from core.wsl.command import WslTarget
from core.wsl.distros import Distro, find_wsl_exe, list_distros
from core.wsl.paths import WslPath, parse_wsl_spec
from core.wsl.refusals import Wsl1Distribution, WslNotInstalled, WslRefusal

#: A stopped distribution starts first (seconds).
SCRIPT_TIMEOUT = 60.0
SCRIPT_LIMIT = 256 * 1024
MAX_PYTHONS = 64
MARK = "@@tensordeck-wsl@@ "

# Any CPython 3.6+ (no newer syntax); the standard library only.
_PYTHON_SCRIPT = r"""
import json, os
MARK, LIMIT = "@@tensordeck-wsl@@ ", 64
home = os.path.expanduser("~")
found = []

def add(path, kind):
    if len(found) < LIMIT and all(p != path for p, _ in found) and os.path.isfile(path) \
            and os.access(path, os.X_OK):
        found.append([path, kind])

for folder in os.environ.get("PATH", "").split(":"):
    if folder and os.path.isfile(os.path.join(folder, "python3")):
        add(os.path.join(folder, "python3"), "path")
        break
for root in ("miniconda3", "anaconda3", "miniforge3", "mambaforge"):
    base = os.path.join(home, root)
    add(os.path.join(base, "bin", "python"), "conda")
    try:
        envs = sorted(os.listdir(os.path.join(base, "envs")))[:LIMIT]
    except OSError:
        envs = []
    for name in envs:
        add(os.path.join(base, "envs", name, "bin", "python"), "conda")
try:
    entries = sorted(os.listdir(home))[:1000]
except OSError:
    entries = []
for name in entries:
    if os.path.isfile(os.path.join(home, name, "pyvenv.cfg")):
        add(os.path.join(home, name, "bin", "python"), "venv")
print(MARK + json.dumps({"home": home, "pythons": found}))
"""

# The same search in POSIX sh; a path holding a character JSON would need escaped is left out.
_SH_SCRIPT = r"""
n=0
safe() { case "$1" in *[!A-Za-z0-9._/+-]*) return 1;; esac; }
add() {
  [ -f "$1" ] && [ -x "$1" ] && safe "$1" && [ "$n" -lt 64 ] || return 0
  [ "$n" -eq 0 ] || printf ','
  printf '["%s","%s"]' "$1" "$2"; n=$((n + 1))
}
home=$HOME; safe "$home" || home=
printf '@@tensordeck-wsl@@ {"home":"%s","pythons":[' "$home"
for root in miniconda3 anaconda3 miniforge3 mambaforge; do
  add "$HOME/$root/bin/python" conda
  for env in "$HOME/$root"/envs/*; do add "$env/bin/python" conda; done
done
for dir in "$HOME"/* "$HOME"/.[!.]*; do [ -f "$dir/pyvenv.cfg" ] && add "$dir/bin/python" venv; done
printf ']}\n'
"""


@dataclass(frozen=True)
class DistroPythons:
    """One distribution and the Pythons found in it (``wsl://`` names), or why none were
    looked for (WSL 1) or found (the search failed)."""

    distro: Distro
    pythons: tuple[str, ...] = ()
    #: The Linux home folder the search ran in ("" when it did not say).
    home: str = ""
    problem: str | None = None


@dataclass(frozen=True)
class WslSurvey:
    """What WSL holds here: no wsl.exe, a refusal of the whole (none installed, an unreadable
    listing), or each distribution's Pythons."""

    wsl_exe: str | None
    distros: tuple[DistroPythons, ...] = ()
    problem: str | None = None

    def pythons(self) -> list[str]:
        return [python for found in self.distros for python in found.pythons]

    def to_json(self) -> dict:
        return {"wsl_exe": self.wsl_exe, "problem": self.problem,
                "distros": [{**asdict(d.distro), "pythons": list(d.pythons), "home": d.home,
                             "problem": d.problem} for d in self.distros]}


def survey_wsl(env: Mapping[str, str] | None = None, *,
               timeout: float = SCRIPT_TIMEOUT) -> WslSurvey:
    """Every distribution of this machine's wsl.exe and the Pythons in each WSL 2 one."""
    wsl_exe = find_wsl_exe(env)
    if wsl_exe is None:
        return WslSurvey(None, problem=str(WslNotInstalled()))
    try:
        distros = list_distros(wsl_exe)
    except WslRefusal as exc:
        return WslSurvey(wsl_exe, problem=str(exc))
    return WslSurvey(wsl_exe, tuple(
        search(WslTarget(wsl_exe, d), timeout=timeout) if d.version == 2
        else DistroPythons(d, problem=str(Wsl1Distribution(d.name)))
        for d in distros.items))


def search(target: WslTarget, *, timeout: float = SCRIPT_TIMEOUT) -> DistroPythons:
    """The Pythons in ``target``'s distribution (python3's script, else sh's)."""
    try:
        payload = _run(target, "python3", _PYTHON_SCRIPT, timeout)
        if payload is None:
            payload = _run(target, "sh", _SH_SCRIPT, timeout)
    except (Overrun, OSError) as exc:
        return DistroPythons(target.distro, problem=f"the search for Pythons {exc}")
    if payload is None:
        return DistroPythons(target.distro, problem="the search for Pythons printed no answer "
                             "(neither python3 nor sh ran)")
    return read_payload(target.distro, payload)


def _run(target: WslTarget, shell: str, script: str, timeout: float) -> object | None:
    """The marked JSON line ``script`` printed (None without one: that program is missing)."""
    # In /: a module in the home folder (~/json.py) would shadow the standard library's.
    ran = run_bounded(target.argv(shell, ["-c", script], cwd="/"), timeout=timeout,
                      limit=SCRIPT_LIMIT)
    text = ran.stdout.decode("utf-8", "replace")
    line = next((ln for ln in reversed(text.splitlines()) if ln.startswith(MARK)), None)
    if line is None:
        return None
    try:
        return bounded.loads(line[len(MARK):])
    except ValueError:
        return None


def read_payload(distro: Distro, payload: object) -> DistroPythons:
    """The search's answer, every field checked: only what names a Linux path becomes a
    ``wsl://`` name."""
    if not isinstance(payload, dict) or not isinstance(payload.get("pythons"), list):
        return DistroPythons(distro, problem="the search for Pythons printed an unexpected answer")
    home = payload.get("home")
    found: list[str] = []
    for entry in payload["pythons"][:MAX_PYTHONS]:
        path = entry[0] if isinstance(entry, list) and entry else None
        if not isinstance(path, str):
            continue
        try:
            found.append(parse_wsl_spec(WslPath(distro.name, path).spec()).spec())
        except WslRefusal:
            continue  # a path no wsl:// name can hold (a control character, not absolute)
    return DistroPythons(distro, tuple(dict.fromkeys(found)),
                         home if isinstance(home, str) and home.isprintable() else "")


def tensorflow_pythons(survey: WslSurvey, *, import_tf: bool = True) -> list[ProbeResult]:
    """The Pythons of ``survey`` that have TensorFlow, each probed in its distribution."""
    probes = [cached_probe(python, import_tf) for python in survey.pythons()]
    return [probe for probe in probes if probe.tf_version]
