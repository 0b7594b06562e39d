"""What editors of config files get: the JSON Schema (``tensordeck schema``), a config written
back as its file would say it, and a file's data before its fields are judged (the window
shows a file with wrong values as the file says them). Apart from loading because none of it
decides whether a config runs."""

from __future__ import annotations

import json
from pathlib import Path

from core.config.file_text import read_text
from core.config.json_checks import parse_text
from core.config.records import SCHEMA_KEY, JobConfig
from core.model import json_schema, to_data
from core.output import show


def schema() -> dict:
    """The JSON Schema of config files, for editors (``tensordeck schema``)."""
    doc = json_schema(JobConfig)
    doc["properties"] = {
        SCHEMA_KEY: {"description": "Editors' schema link; ignored.", "type": "string"},
        **doc["properties"],
    }
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["title"] = "TensorDeck job"
    return doc


def schema_json() -> str:
    return json.dumps(schema(), indent=2)


def schema_cli(_args: object) -> int:
    print(schema_json())
    return 0


def config_to_json(cfg: JobConfig) -> dict:
    """The config as its file would say it, in its file order: what is null or at its default
    is left out."""
    return to_data(cfg, skip_defaults=True)


def read_config_data(path: str | Path) -> dict:
    """The file's JSON object as plain data, read as :func:`core.config.load_config` reads it
    (bounded, every value a field could hold), fields not yet validated: what an editor shows.
    Raises :class:`ConfigError` when the file cannot be read, is not JSON or not an object, or
    holds what no field may (duplicate keys, numbers out of range, NUL, nesting too deep)."""
    path = Path(path)
    return parse_text(read_text(path), show(str(path), None))
