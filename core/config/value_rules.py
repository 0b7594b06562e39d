"""The rules of one value of a config: what a string that becomes a path, an argument, a host,
user, job or node name, or an environment variable's name may hold, and the bounds of ports
and waits. Apart from the records (:mod:`core.config.records`) so that the records read as the
file's fields and each rule as one function; none of them reads another field."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, TypeVar

from core.model import Check, Rule
from core.output import show

_Node = TypeVar("_Node")  # the records of nodes (core.config.records.Node)

#: The longest wait a field may give (a day): more is a typo.
MAX_SECONDS = 86400.0

_NAME_RE = re.compile(r'^[^\\/:*?"<>|\x00-\x1f\x7f]{1,64}$')
# C0, DEL, C1 (\x9b is CSI to some terminals) and the Unicode line separators.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_HOSTNAME_RE = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$"
)
#: A variable name every shell can set and WSLENV can pass (Windows itself takes more).
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_USER_RE = re.compile(r"^[^-\s;|&$`<>'\"():/\x00-\x1f\x7f][^\s;|&$`<>'\"():/\x00-\x1f\x7f]*$")
#: A long option, the form salloc and an #SBATCH line both take as one word.
_SBATCH_OPTION_RE = re.compile(r"^--[A-Za-z][A-Za-z0-9-]*(=\S.*)?$")


def _control_problem(text: str, allowed: str = "") -> str | None:
    for match in _CONTROL_RE.finditer(text):
        if match.group() not in allowed:
            return (
                f"contains the control character {ascii(match.group())[1:-1]} at position "
                f"{match.start()}; remove it"
            )
    return None


def _no_control(text: str) -> str:
    problem = _control_problem(text)
    if problem:
        raise ValueError(problem)
    return text


def _arg(text: str) -> str:
    problem = _control_problem(text, allowed="\t")  # a tab is a common separator argument
    if problem:
        raise ValueError(problem)
    return text


def _hostname(host: str) -> str:
    """A host name or an IP address and nothing else: it reaches ssh, TF_CONFIG and shells."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    if not _HOSTNAME_RE.match(host):
        raise ValueError(
            f"{show(host)!r} is not a host name or IP address (letters, digits, '.', '-', '_'; "
            "IPv6 without brackets)"
        )
    return host


def _printable_name(name: str) -> bool:
    return bool(_NAME_RE.match(name)) and name.isprintable() and name.strip() == name


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _user(user: str) -> str:
    if not _USER_RE.match(user):
        raise ValueError(
            f"{show(user)!r} is not a user name: no spaces, no leading '-', none of "
            "; | & $ ` < > ' \" ( ) : /"
        )
    return user


#: Strings that become paths, commands or host names: control characters are refused.
PathText = Annotated[str, Check(_no_control)]
Arg = Annotated[str, Check(_arg)]
HostName = Annotated[str, Check(_hostname)]
UserName = Annotated[str, Check(_user)]
Port = Annotated[int, Rule(ge=1, le=65535)]
Seconds = Annotated[float, Rule(ge=0, le=MAX_SECONDS)]


def check_gpus(gpus: list[int] | None) -> list[int] | None:
    if gpus is None:
        return gpus
    if any(g < 0 for g in gpus):
        raise ValueError("GPU indexes must be >= 0")
    if len(set(gpus)) != len(gpus):
        raise ValueError("lists a GPU twice")
    return gpus


def check_task_host(host: str) -> str:
    _hostname(host)
    if host != "localhost" and not _is_loopback(host):
        raise ValueError(
            f'{host!r} is another machine: describe it in "nodes" and give the task '
            '"node": its name'
        )
    return host


def check_sbatch_option(line: str) -> str:
    """``--qos=high`` (``#SBATCH --qos=high`` accepted): one option, no newline or script."""
    option = line.removeprefix("#SBATCH").strip()
    if _CONTROL_RE.search(option) or not _SBATCH_OPTION_RE.match(option):
        raise ValueError("must be one long sbatch option, such as --qos=high or "
                         "#SBATCH --qos=high")
    return option


def check_job_name(name: str) -> str:
    if not _printable_name(name) or name.endswith("."):
        raise ValueError(
            "must be 1-64 characters, no leading/trailing spaces, no trailing '.', no "
            'control characters, none of \\ / : * ? " < > |'
        )
    return name


def check_script(script: str) -> str:
    if not script.strip():
        raise ValueError("must name the training script")
    return script


def check_env(env: dict[str, str]) -> dict[str, str]:
    for key in env:
        if not ENV_NAME_RE.match(key):
            raise ValueError(
                f"'{show(key)}' is not a valid variable name: use letters, digits and '_', "
                "not starting with a digit (Windows takes more, but no shell can export such "
                "a name, nor WSLENV pass it to WSL); rename it"
            )
        if key == "TF_CONFIG" or key.startswith("TENSORDECK_"):
            raise ValueError(f"{key} is set by TensorDeck for each task; remove it")
    return env


def check_node_names(nodes: dict[str, _Node]) -> dict[str, _Node]:
    for name in nodes:
        if not _printable_name(name):
            raise ValueError(
                f"'{show(name)}' is not a node name: 1-64 characters, no control "
                'characters, none of \\ / : * ? " < > |'
            )
    return nodes
