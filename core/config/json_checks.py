"""A config's JSON before its fields are judged: parsed bounded (core.bounded), then every value
checked for what no field may hold (duplicate keys, bad numbers, NUL and lone surrogates,
nesting and lists past the bounds). Apart from the field checks because a file broken this way
gets only these problems: field checks on it would only add noise."""

from __future__ import annotations

import json
import math
import re

from core.bounded import MAX_INT_DIGITS, BadNumber, TooDeep
from core.bounded import loads as loads_json
from core.config.problems import ConfigError, ConfigProblem, field_path
from core.findings import Text
from core.output import show

# Bounds that keep checking fast and memory small whatever the file says: a config is a few
# KiB nested 3 levels deep.
MAX_DEPTH = 32
MAX_ENTRIES = 65536  # per list or object: more arguments than any command line takes

_UNPASSABLE_RE = re.compile("[\x00\ud800-\udfff]")
_TOO_DEEP = Text.of("config.too_deep", depth=MAX_DEPTH)


def parse_text(text: str, source: str) -> dict:
    """The JSON object of ``text`` as plain data (see :func:`plain_object`); ConfigError when
    it is not JSON, not an object, or holds what no field may."""
    try:
        data = loads_json(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(source, [ConfigProblem.of("", Text.of(
            "config.invalid_json", line=exc.lineno, column=exc.colno, error=exc.msg))]) from None
    except TooDeep:
        raise ConfigError(source, [ConfigProblem.of("", _TOO_DEEP)]) from None
    return plain_object(data, source)


def plain_object(data: object, source: str) -> dict:
    """``data`` as a plain JSON object, every value checked (:func:`_checked`); ConfigError
    listing each problem when it is not an object or holds what no field may."""
    if not isinstance(data, dict):
        raise ConfigError(source, [ConfigProblem.of("", Text.of("config.not_an_object",
                                                                example="{...}"))])
    problems: list[ConfigProblem] = []
    checked = _checked(data, "", problems)
    if problems:  # the file itself is broken: field checks on it would only add noise
        raise ConfigError(source, problems)
    assert isinstance(checked, dict)  # an object stays one
    return checked


def _text_problem(text: str, message_id: str = "config.bad_text") -> Text | None:
    """What no OS accepts in a name, an argument or a variable: NUL, and lone surrogates
    (from a \\ud800 escape: they cannot even be encoded to be printed or passed on), said by
    ``message_id`` (a value's, a key's)."""
    found = _UNPASSABLE_RE.search(text)
    if found is None:
        return None
    char = found.group()
    what = (Text.of("config.nul") if char == "\x00"
            else Text.of("config.surrogate", char=show(char)))
    return Text.of(message_id, what=what, position=found.start())


def _checked(value: object, where: str, problems: list[ConfigProblem], depth: int = 0) -> object:
    """``value`` as plain JSON data, with what no field may hold listed in ``problems``:
    duplicate keys, bad numbers and characters, nesting deeper than any config needs.
    The recursion stops at MAX_DEPTH, so it is bounded whatever the input."""

    def add(text: Text, at: str = where) -> None:
        problems.append(ConfigProblem.of(at, text))

    if depth > MAX_DEPTH:
        add(_TOO_DEEP, show(where, 80))
        return None
    if isinstance(value, (list, dict)) and len(value) > MAX_ENTRIES:
        add(Text.of("config.too_many_entries", n=len(value), limit=MAX_ENTRIES))
        return None
    if isinstance(value, list):
        return [_checked(v, f"{where}[{i}]", problems, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return _checked_object(value, where, problems, depth)
    if isinstance(value, BadNumber):  # core.bounded's English: the window reads it back
        problems.append(ConfigProblem(where, value.message))
    elif problem := _scalar_problem(value):
        add(problem)
    return value


def _scalar_problem(value: object) -> Text | None:
    """What no field may hold in a string or a number (None: nothing)."""
    if isinstance(value, str):
        return _text_problem(value)
    if isinstance(value, float) and not math.isfinite(value):
        return Text.of("config.not_finite", value=value)
    if isinstance(value, int) and value.bit_length() > MAX_INT_DIGITS * 3:
        return Text.of("config.too_many_digits", digits=value.bit_length() * 3 // 10,
                       limit=MAX_INT_DIGITS)
    return None


def _checked_object(value: dict, where: str, problems: list[ConfigProblem],
                    depth: int) -> dict:
    """A JSON object checked as :func:`_checked` checks values, its keys too (bad characters,
    keys the file gives twice)."""

    def at(key: object) -> str:
        return field_path((where, key) if where else (key,))

    out = {}
    for key, item in value.items():
        if isinstance(key, str) and (problem := _text_problem(key, "config.bad_key_text")):
            problems.append(ConfigProblem.of(at(key), problem))
        out[key] = _checked(item, at(key), problems, depth + 1)
    for key in getattr(value, "duplicates", ()):
        problems.append(ConfigProblem.of(at(key), Text.of("config.duplicate_key",
                                                          key=show(key))))
    return out
