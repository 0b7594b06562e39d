"""The job config file: its records (core.model), its loader and its JSON Schema.

``load_config`` turns a file into a :class:`JobConfig` or raises :class:`ConfigError` carrying
one message per problem, each naming the field (``tasks[1].count: must be >= 1``). Only checks
that need no file system or network live in the model; :mod:`core.topology` checks files and
ports. Whatever the file holds, loading is bounded (size, nesting, entries, digits) and ends in
a config or a ConfigError, never another exception: see docs/reliability.md. A text checked
once comes from the cache of checked configs afterwards (pydantic is imported only to check).

This module holds the two ways in (:func:`load_config` for a file, :func:`check_config` for an
editor's fields) and re-exports the names callers use; the parts, in the order a file meets
them:

- ``file_text``: the file's text, read bounded (no FIFO, device or folder; UTF-8);
- ``json_checks``: the JSON parsed and every value checked for what no field may hold;
- ``value_rules`` and ``records``: the rules of single values, and the records built of them;
- ``validation``: pydantic's check of the records, with ``field_errors`` (its errors as
  messages) and ``cross_field`` (what the fields say together);
- ``problems``: ConfigProblem and ConfigError, which every part reports in;
- ``checked_cache``: the cache of checked configs;
- ``editors``: the JSON Schema, a config as its file says it, a file's data before validation.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.config.checked_cache import checked_once
from core.config.editors import config_to_json, read_config_data, schema, schema_cli
from core.config.file_text import MAX_CONFIG_BYTES, read_text
from core.config.json_checks import parse_text
from core.config.problems import ConfigError, ConfigProblem
from core.config.records import (
    MAX_TASKS,
    PS_WORKER_RESTARTS,
    SCHEMA_KEY,
    SINGLE_PROCESS,
    JobConfig,
    Node,
    RestartPolicy,
    SlurmOptions,
    TaskGroup,
    default_cluster_spec,
)
from core.config.validation import parse_config
from core.config.value_rules import ENV_NAME_RE
from core.output import show  # message text; re-exported: callers import it from here

__all__ = [
    "CHECKED_CONFIGS",
    "CHECKED_FIELDS",
    "ENV_NAME_RE",
    "MAX_CONFIG_BYTES",
    "MAX_TASKS",
    "PS_WORKER_RESTARTS",
    "SCHEMA_KEY",
    "SINGLE_PROCESS",
    "ConfigError",
    "ConfigProblem",
    "JobConfig",
    "Node",
    "RestartPolicy",
    "SlurmOptions",
    "TaskGroup",
    "check_config",
    "config_to_json",
    "default_cluster_spec",
    "load_config",
    "parse_config",
    "read_config_data",
    "schema",
    "schema_cli",
    "show",
]

CHECKED_CONFIGS = 256  # entries kept: one per config text a user runs
CHECKED_FIELDS = 64  # the editor's: one per document it showed (and the last edits)


def load_config(path: str | Path) -> JobConfig:
    """Read and validate a config file; :class:`ConfigError` for file, JSON or field problems.
    A text this TensorDeck checked before comes from the cache of checked configs."""
    text = read_text(Path(path))
    source = show(str(path), None)
    return checked_once(text, lambda: parse_config(parse_text(text, source), source),
                        "configs", CHECKED_CONFIGS)


def check_config(data: dict) -> JobConfig:
    """:func:`parse_config` for fields an editor holds (the window checks every edit); fields
    checked before (the starter job at every start, a document shown before) come from the cache
    of checked configs, so showing them imports no pydantic. They are kept apart from the configs
    that were loaded, so that typing never pushes those out."""
    try:  # the key: the fields as the JSON text that parses back to them
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
        same = json.loads(text) == data
    except (TypeError, ValueError):
        same = False
    if not same:  # not plain JSON data (a tuple, a number as a key): the check says what
        return parse_config(data)
    return checked_once(text, lambda: parse_config(data), "fields", CHECKED_FIELDS)
