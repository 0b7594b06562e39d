"""Table columns that stay readable in a narrow window (1024x700, 150% scale).

Qt's ``Stretch`` mode shares the table's width between columns and squeezes them, in a narrow
window, down to the header's minimum section size (a host column of 12 pixels, "SSH po").
:func:`stretch_readably` gives those columns the room left as well, but never less than their
header's text needs; when the columns need more than the table has, it scrolls sideways."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader, QTableView


def header_width(header: QHeaderView, col: int) -> int:
    """What column ``col``'s header text needs, measured as Qt measures it for
    ResizeToContents (the style sheet's font and padding included)."""
    option = QStyleOptionHeader()
    option.initFrom(header)
    option.section = col
    option.text = str(header.model().headerData(col, Qt.Orientation.Horizontal) or "")
    return header.style().sizeFromContents(QStyle.ContentsType.CT_HeaderSection, option,
                                           QSize(), header).width()


class _Stretcher(QObject):
    """Sizes the stretched columns whenever the table's viewport or another column changes."""

    def __init__(self, table: QTableView, stretch: tuple[int, ...],
                 minimum: Mapping[int, int]) -> None:
        super().__init__(table)
        self._table = table
        self._stretch = stretch
        self._minimum = dict(minimum)
        table.viewport().installEventFilter(self)
        table.horizontalHeader().sectionResized.connect(self._on_section_resized)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.fit()
        return False

    def _on_section_resized(self, col: int, _old: int, _new: int) -> None:
        if col not in self._stretch:  # another column grew to its contents
            self.fit()

    def fit(self) -> None:
        header = self._table.horizontalHeader()
        shown = [c for c in range(header.count()) if not header.isSectionHidden(c)]
        stretch = [c for c in self._stretch if c in shown]
        if not stretch:
            return
        others = sum(header.sectionSize(c) for c in shown if c not in stretch)
        share = (self._table.viewport().width() - others) // len(stretch)
        for col in stretch:
            width = max(share, header_width(header, col), self._minimum.get(col, 0))
            if header.sectionSize(col) != width:
                header.resizeSection(col, width)


def stretch_readably(table: QTableView, stretch: Iterable[int],
                     minimum: Mapping[int, int] | None = None) -> None:
    """Columns ``stretch`` of ``table`` share the width the other columns leave, each at
    least as wide as its header's text (and as ``minimum`` says, by column: what its cells
    need); the table scrolls sideways when that is too wide."""
    header = table.horizontalHeader()
    header.setStretchLastSection(False)
    columns = tuple(stretch)
    for col in columns:
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    _Stretcher(table, columns, minimum or {}).fit()
