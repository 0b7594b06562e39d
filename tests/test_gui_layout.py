"""The window on a small or scaled screen (1024x700, and 150% at 1024x700 and 1280x800; the
Chinese UI at the smallest): what the user sees of the Run view after a finished run, every
table's columns and every button on each page, no page scrolling sideways, the log following
its end through resizes, and the History's Compare dialog under the mouse.

Each screen is one child process (the scale is fixed when Qt starts) that drives the real
window: tests/gui_layout_probe.py says what it does and measures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, user_state_env

pytest.importorskip("PySide6")

from tests.gui_fixtures import seed_probe

pytest_plugins = ["tests.gui_fixtures"]

#: (name, screen width, height, QT_SCALE_FACTOR, language)
SCREENS = (("1024x700", 1024, 700, "1", "en"), ("1024x700-150", 1024, 700, "1.5", "en"),
           ("1280x800-150", 1280, 800, "1.5", "en"), ("1024x700-150-zh", 1024, 700, "1.5",
                                                      "zh_CN"))


@pytest.fixture(scope="module", params=SCREENS, ids=[s[0] for s in SCREENS])
def seen(request, tmp_path_factory, probed_once) -> dict:
    name, width, height, scale, language = request.param
    folder = tmp_path_factory.mktemp(name)
    # The child's own user state (a module fixture runs outside the tests' monkeypatch), whose
    # cache holds this interpreter's probe: the Machine page shows a finished check.
    user = user_state_env(folder / "user")
    seed_probe(probed_once, user)
    screen = folder / "screen.json"  # the offscreen platform's one screen
    screen.write_text(json.dumps({"screens": [{"name": name, "x": 0, "y": 0, "width": width,
                                               "height": height, "logicalDpi": 96,
                                               "dpr": 1}]}))
    # Qt splits platform arguments at ":": the file is named relative to the child's folder.
    env = {**os.environ, **user, "QT_QPA_PLATFORM": f"offscreen:configfile={screen.name}",
           "QT_SCALE_FACTOR": scale, "HOME": str(folder),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    out = folder / "seen.json"
    result = subprocess.run([sys.executable, str(REPO / "tests" / "gui_layout_probe.py"),
                             str(out), language], cwd=folder, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_finished_runs_status_line_leaves_the_log_in_sight(seen):
    """The reason under Start ("Run failed: worker-1 exited with code 3") takes a line; the
    page scrolls no more than its smallest size makes it (a word-wrapped reason made the page
    as tall as it would like, and the log went below the fold), and the log shows lines."""
    assert seen["reason"].startswith(("Run failed", "运行失败"))
    assert seen["page_scroll"] <= seen["page_must_scroll"], seen
    assert seen["log_shown_height"] >= 5 * seen["log_line_height"], seen


def narrow_columns(page: dict) -> list[tuple[str, dict]]:
    return [(table, col) for table, cols in page["tables"].items() for col in cols
            if col["width"] < col["header_needs"]]


def test_the_run_views_task_table_columns_hold_their_headers(seen):
    run = seen["pages"]["run"]["tables"]
    (table,) = [cols for name, cols in run.items() if ".TaskTable." in name]
    assert len(table) == 9
    assert [c for c in table if c["width"] < c["header_needs"]] == []


def test_the_cluster_views_host_column_holds_its_header(seen):
    tasks = next(cols for name, cols in seen["pages"]["cluster"]["tables"].items()
                 if name.startswith("TaskEditor."))
    host = tasks[2]
    assert host["width"] >= host["header_needs"], host


@pytest.mark.parametrize("page", ["machine", "cluster", "run", "history"])
def test_no_column_on_a_page_is_narrower_than_its_header(seen, page):
    assert narrow_columns(seen["pages"][page]) == []


@pytest.mark.parametrize("page", ["machine", "cluster", "run", "history"])
def test_no_button_on_a_page_is_cut(seen, page):
    """Each button as big as its text needs, and none cut by the edge of its pane (the
    Cluster form scrolled sideways and hid its Browse buttons)."""
    cut = [b for b in seen["pages"][page]["buttons"]
           if b["width"] < b["hint_width"] or b["height"] < b["hint_height"]
           or b["shown_width"] < b["width"]]
    assert cut == []


@pytest.mark.parametrize("page", ["machine", "cluster", "run", "history"])
def test_no_page_scrolls_sideways(seen, page):
    """The Cluster form's widest rows (an unwrapped label, long choices, labels beside their
    fields) and History's title beside its five buttons made those pages scroll sideways by
    a few dozen pixels at 1024x700 150%."""
    shown = seen["pages"][page]
    assert (shown["scroll_x"], shown["bar_x"]) == (0, False), shown["widest"]


def test_the_compare_dialog_fits_the_screen_under_the_mouse(seen):
    compare = seen["compare"]
    assert compare["hover"], "the mouse over the charts showed no values"
    assert compare["before"] <= compare["screen"], compare
    assert compare["after"] <= compare["screen"], compare


def test_the_log_keeps_following_its_end_through_resizes(seen):
    """Lines, smaller, lines, bigger, lines, smaller, lines: the end is in sight each time."""
    assert seen["log_follows"] == [True] * 7
