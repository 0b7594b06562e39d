"""A pytest plugin for the Windows lane (``-p tests.lane_progress``): the id of the test that
runs now, in the file TENSORDECK_LANE_CURRENT names. On Windows pytest-timeout can only end a
test that overruns by ending the whole run (no signals), without saying which test it was: the
lane reads it here."""

from __future__ import annotations

import os
from pathlib import Path


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    where = os.environ.get("TENSORDECK_LANE_CURRENT")
    if where:
        Path(where).write_text(nodeid, encoding="utf-8")
