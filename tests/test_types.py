"""The core type-checks with no error (pyproject.toml [tool.mypy]), for Linux and for Windows.

mypy follows ``sys.platform`` checks, so the Windows run finds a POSIX-only name on a path that
Windows takes (``signal.SIGHUP`` in the Slurm stand-in, which a Windows launcher runs for
``--slurm-login``, was one) without a Windows machine, and the Linux run the reverse.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="the Linux run checks the Windows platform too (--platform)"
)


@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_core_has_no_type_error(platform):
    pytest.importorskip("mypy", reason="mypy is in the test extra")
    # A cache per platform: one platform's run would invalidate the other's.
    cache = REPO / ".mypy_cache" / platform
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--platform", platform, "--cache-dir", str(cache)],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert errors == [], "\n".join(errors)
    assert result.returncode == 0, result.stdout + result.stderr
