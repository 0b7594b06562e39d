"""The window leaves out TensorFlow's lines under the job's TF_CPP_MIN_LOG_LEVEL (what the
wizard's "Hide TensorFlow's information messages" sets), and "Raw output" brings them back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui_fixtures import wait_for_run
from tests.test_tf_log_level import prints_a_recorded_log

pytest_plugins = ["tests.gui_fixtures"]


@pytest.mark.parametrize("level", [None, "1"])
def test_the_run_view_hides_info_lines_until_raw_output_is_ticked(qtbot, window, tmp_path,
                                                                   level):
    config = prints_a_recorded_log(tmp_path, level)
    view = window.run_view
    window.show_page("run")
    view.start(config)
    assert wait_for_run(qtbot, view).status.value == "succeeded"
    pane = view.logs.combined
    qtbot.waitUntil(lambda: "serving at grpc://" in pane.toPlainText(), timeout=10_000)
    assert (" I0000 " in pane.toPlainText()) == (level is None)
    assert "failed call to cuInit" in pane.toPlainText()
    for raw, info_shown in ((True, True), (False, level is None), (True, True)):
        qtbot.mouseClick(view.logs.raw_output, Qt.MouseButton.LeftButton)
        assert view.logs.raw_output.isChecked() == raw
        assert (" I0000 " in pane.toPlainText()) == info_shown
