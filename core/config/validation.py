"""A config's fields judged: pydantic checks the records, its errors become messages naming
the field, and what the fields say together is checked too, on a partial config when some
fields are wrong, so that every problem is listed at once. Apart from reading and caching
because it is the one step that imports pydantic."""

from __future__ import annotations

from core.config.cross_field import cross_field_problems, plannable
from core.config.field_errors import field_problems
from core.config.json_checks import plain_object
from core.config.problems import ConfigError, ConfigProblem
from core.config.records import SCHEMA_KEY, JobConfig
from core.findings import Text
from core.model import validate, validation_error


def parse_config(data: object, source: str = "config") -> JobConfig:
    """Validate already-parsed JSON. Raises :class:`ConfigError` listing every problem."""
    checked = plain_object(data, source)
    link = checked.pop(SCHEMA_KEY, None)
    if link is not None and not isinstance(link, str):
        raise ConfigError(source, [ConfigProblem.of(SCHEMA_KEY,
                                                    Text.of("config.schema_not_string"))])
    try:
        cfg = validate(JobConfig, checked)
    except validation_error() as exc:
        errors = exc.errors()
        problems = field_problems(errors)
        # Every problem at once: what the other keys say together is checked too, so that
        # fixing a name does not reveal a missing chief only then.
        broken = frozenset(str(e["loc"][0]) for e in errors if e["loc"])
        partial = _partial_config(checked, broken)
        if partial is not None:
            problems += cross_field_problems(partial)
        raise ConfigError(source, problems, partial=plannable(partial),
                          broken=broken) from None
    if problems := cross_field_problems(cfg):
        raise ConfigError(source, problems, partial=plannable(cfg))
    return cfg


#: Stand-ins for required keys whose values are wrong: no cross-field check reads them.
_STAND_INS = {"name": "job", "script": "train.py"}
#: The keys the cross-field checks read: when one of them is wrong, they would judge defaults.
_CROSS_FIELD_KEYS = frozenset({"strategy", "tasks", "nodes", "address"})


def _partial_config(data: dict, broken: frozenset[str]) -> JobConfig | None:
    """``data`` with its ``broken`` keys at their defaults (stand-ins for the required ones),
    or None when a key the cross-field checks read is among them."""
    if broken & _CROSS_FIELD_KEYS:
        return None
    rest = {key: value for key, value in data.items() if key not in broken}
    rest.update({key: _STAND_INS[key] for key in broken if key in _STAND_INS})
    try:
        return validate(JobConfig, rest)
    except validation_error():
        return None
