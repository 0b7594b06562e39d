"""pydantic's field errors said as TensorDeck's messages (catalogue ids of core.messages, in
English): "must be an integer, not a string", the allowed keys and the one meant by a typo.
Apart so that the records and their checks never depend on pydantic's error vocabulary."""

from __future__ import annotations

import dataclasses
import difflib
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


_TYPE_WORDS = {
    "int_type": "an integer",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
    "float_type": "a number",
    "bool_type": "true or false",
    "model_type": "an object",
    "dataclass_type": "an object",
    "int_from_float": "an integer",
}


def _message(err: Mapping[str, Any], model_fields: dict[tuple, list[str]]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind in ("missing", "missing_argument"):
        return tr("config.required", "en")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        parent = tuple(p for p in err["loc"][:-1] if not isinstance(p, int))
        if parent[:1] == ("nodes",):
            parent = ("nodes",)  # nodes.<name>.<key>: the key of a Node
        allowed = model_fields.get(parent, [])
        close = difflib.get_close_matches(str(err["loc"][-1]), allowed, n=1)
        if close:
            return tr("config.unknown_key_close", "en", close=close[0],
                      allowed=", ".join(allowed))
        return tr("config.unknown_key", "en", allowed=", ".join(allowed))
    if kind == "literal_error":
        return tr("config.one_of", "en", choices=str(ctx.get("expected", "")).replace("'", ""))
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        op = {
            "greater_than_equal": ">=",
            "greater_than": ">",
            "less_than_equal": "<=",
            "less_than": "<",
        }[kind]
        return tr("config.bound", "en", op=op, bound=next(iter(ctx.values())))
    if kind in _TYPE_WORDS:
        return (
            f"must be {_TYPE_WORDS[kind]}, not {type(err.get('input')).__name__}".replace(
                "NoneType", "null"
            )
            .replace("not str", "not a string")
            .replace("not dict", "not an object")
        )
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    if kind == "too_long":
        return tr("config.at_most", "en", n=ctx.get("max_length"))
    return err["msg"]


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
