"""pydantic's field errors said as TensorDeck's messages (catalogue ids of core.messages, in
English, which the window says in its language): "must be an integer, not a string", the
allowed keys and the one meant by a typo.
Apart so that the records and their checks never depend on pydantic's error vocabulary."""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from core.config.problems import ConfigProblem, field_path
from core.config.records import SCHEMA_KEY, JobConfig, Node, RestartPolicy, SlurmOptions, TaskGroup
from core.messages import tr


def field_problems(errors: Iterable[Mapping[str, Any]]) -> list[ConfigProblem]:
    """One problem per pydantic error (``ValidationError.errors()``), each naming its field."""
    fields = _field_names()
    return [ConfigProblem(where=field_path(e["loc"]), message=_message(e, fields))
            for e in errors]


#: What a field must be, by pydantic's error type: words of the catalogue (``type.*``).
_EXPECTED = {
    "int_type": "type.integer",
    "int_from_float": "type.integer",
    "float_type": "type.number",
    "string_type": "type.string",
    "list_type": "type.list",
    "dict_type": "type.object",
    "model_type": "type.object",
    "dataclass_type": "type.object",
    "bool_type": "type.boolean",
}
#: What the file gave instead, by its JSON type (true, false and null: by their value).
_GIVEN = {int: "type.integer", float: "type.decimal", str: "type.string", list: "type.list",
          dict: "type.object"}
_BOUNDS = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=",
           "less_than": "<"}


def _message(err: Mapping[str, Any], model_fields: dict[tuple, list[str]]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind in ("missing", "missing_argument"):
        return tr("config.required", "en")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return _unknown_key(err["loc"], model_fields)
    if kind in _EXPECTED:
        return tr("config.type", "en", expected=tr(_EXPECTED[kind], "en"),
                  given=_given(err.get("input")))
    if kind == "literal_error":
        return tr("config.one_of", "en", choices=str(ctx.get("expected", "")).replace("'", ""))
    if kind in _BOUNDS:
        return tr("config.bound", "en", op=_BOUNDS[kind], bound=next(iter(ctx.values())))
    if kind == "value_error":  # the value rules' words, each a catalogue message's English
        return str(ctx.get("error", err["msg"]))
    if kind == "too_long":
        return tr("config.at_most", "en", n=ctx.get("max_length"))
    if kind == "string_pattern_mismatch":
        return tr("config.pattern", "en", pattern=ctx.get("pattern"))
    return err["msg"]


def _unknown_key(loc: tuple, model_fields: dict[tuple, list[str]]) -> str:
    parent = tuple(p for p in loc[:-1] if not isinstance(p, int))
    if parent[:1] == ("nodes",):
        parent = ("nodes",)  # nodes.<name>.<key>: the key of a Node
    allowed = model_fields.get(parent, [])
    close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
    if close:
        return tr("config.unknown_key_close", "en", close=close[0], allowed=", ".join(allowed))
    return tr("config.unknown_key", "en", allowed=", ".join(allowed))


def _given(value: object) -> str:
    if value is None or isinstance(value, bool):
        word: str | None = f"type.{json.dumps(value)}"
    else:
        word = _GIVEN.get(type(value))
    return tr(word, "en") if word else type(value).__name__


def _field_names() -> dict[tuple, list[str]]:
    def names(model: type) -> list[str]:
        return [f.name for f in dataclasses.fields(model)]

    return {
        (): [SCHEMA_KEY, *names(JobConfig)],
        ("tasks",): names(TaskGroup),
        ("restart",): names(RestartPolicy),
        ("tasks", "restart"): names(RestartPolicy),
        ("nodes",): names(Node),
        ("slurm",): names(SlurmOptions),
    }
