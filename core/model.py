"""Records: plain dataclasses whose field types carry their rules, for the files TensorDeck reads
(job configs, run summaries).

pydantic checks a record only when a file is validated, through its documented extension
protocol (``__get_pydantic_core_schema__``): the markers below hold a rule and hand it to
pydantic then. Building, reading and writing records needs no pydantic, so the launcher, which
starts a checked config again from core.config's cache, never imports it (60-80 ms of launch).

    count: Annotated[int, Rule(ge=1, le=1024), Doc("How many tasks.")] = 1
    gpus: Annotated[list[int] | None, Check(_gpus), Doc("GPU indexes.")] = None

Field errors read as pydantic's (``loc``, ``type``, ``ctx``); a record's ``__post_init__``
check raises ValueError, which pydantic reports at the record's place.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import sys
import types
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # typing_extensions: a dependency on 3.10 only (pyproject.toml)
    from typing_extensions import dataclass_transform

if TYPE_CHECKING:
    from pydantic import ValidationError

T = TypeVar("T")
Extra = Literal["forbid", "ignore"]


class Rule:
    """Constraints of the value's own schema: ``ge``/``le`` (numbers), ``pattern`` (strings),
    ``max_length`` (lists); JSON Schema shows them (minimum, maximum, pattern, maxItems)."""

    def __init__(self, **constraints: Any) -> None:
        self.constraints: dict[str, Any] = constraints

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        return {**handler(source), **self.constraints}


class Check:
    """A check (and normalisation) run on the value once its type is right; it raises
    ValueError with the message the user sees."""

    def __init__(self, check: Callable[[Any], Any]) -> None:
        self.check = check

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.check, handler(source))


class Doc:
    """The field's description in the JSON Schema (editors show it)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        return {**handler(schema), "description": self.text}


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, extra: Extra = "forbid", strict: bool = True) -> Callable[[type[T]], type[T]]: ...


# dataclass_transform: type checkers see a record as the keyword-only dataclass it is.
@dataclass_transform(kw_only_default=True, field_specifiers=(dataclasses.field,))
def record(
    cls: type[T] | None = None, *, extra: Extra = "forbid", strict: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    """A dataclass validated as a record: ``extra="forbid"`` (a typo is an error, not a
    no-op) or ``"ignore"`` (a newer TensorDeck's fields do not make a file unreadable);
    ``strict``: "2" is not a count and 1 is not a string."""

    def make(cls: type[T]) -> type[T]:
        cls.__pydantic_config__ = {"extra": extra, "strict": strict}  # type: ignore[attr-defined]
        return dataclasses.dataclass(cls, kw_only=True)  # fields in file order, defaults or not

    return make if cls is None else make(cls)


@functools.cache
def _adapter(cls: type) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(cls)


def validate(cls: type[T], data: object) -> T:
    """Parsed JSON ``data`` as a ``cls`` record, every rule checked; pydantic's ValidationError
    if not. A strict record is checked as JSON text: strict Python mode takes only instances
    of a dataclass, JSON mode takes objects."""
    adapter = _adapter(cls)  # type: ignore[arg-type]  # a class is hashable: mypy#11470
    if cls.__pydantic_config__["strict"]:  # type: ignore[attr-defined]
        return adapter.validate_json(json.dumps(data))
    return adapter.validate_python(data)


def json_schema(cls: type) -> dict:
    return _adapter(cls).json_schema()


def validation_error() -> type[ValidationError]:
    from pydantic import ValidationError

    return ValidationError


# --- records as plain data, both ways, with no check ------------------------------------------


def to_data(value: object, *, skip_defaults: bool = False) -> Any:
    """A record (or a list or dict of them) as JSON data: enums as their values; with
    ``skip_defaults`` a field at its default or null is left out (as a file leaves it out)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if skip_defaults and (item is None or _is_default(f, item)):
                continue
            out[f.name] = to_data(item, skip_defaults=skip_defaults)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [to_data(v, skip_defaults=skip_defaults) for v in value]
    if isinstance(value, dict):
        return {k: to_data(v, skip_defaults=skip_defaults) for k, v in value.items()}
    return value


def default_of(f: dataclasses.Field) -> object:
    """The value ``f`` takes when a file leaves it out (a fresh one for a factory);
    dataclasses.MISSING for a required field."""
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _is_default(f: dataclasses.Field, value: object) -> bool:
    default = default_of(f)
    return default is not dataclasses.MISSING and value == default


def from_data(cls: type[T], data: dict) -> T:
    """A record from data that was checked as one before (a cache, another TensorDeck's
    message): nested records are rebuilt from their field types; nothing is checked again."""
    hints = _hints(cls)  # type: ignore[arg-type]  # a class is hashable: mypy#11470
    return cls(**{k: _build(hints[k], v) for k, v in data.items()})


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _build(kind: Any, value: object) -> Any:
    if value is None:
        return None
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        real = [a for a in args if a is not type(None)]
        return _build(real[0], value) if len(real) == 1 else value
    if origin is list and isinstance(value, list):
        return [_build(args[0], v) for v in value]
    if origin is dict and isinstance(value, dict):
        return {k: _build(args[1], v) for k, v in value.items()}
    return _build_class(kind, value)


def _build_class(kind: Any, value: object) -> Any:
    """A record or an enum member from its data: the only field types stored as other types."""
    if not isinstance(kind, type):
        return value
    if dataclasses.is_dataclass(kind) and isinstance(value, dict):
        return from_data(kind, value)
    if issubclass(kind, enum.Enum):
        return kind(value)
    return value


def field_types(cls: type) -> dict[str, Any]:
    """Each field's type with its markers (``Annotated``), for editors that read the rules."""
    return typing.get_type_hints(cls, include_extras=True)
