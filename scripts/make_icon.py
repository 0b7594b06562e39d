"""Draw TensorDeck's icon with Qt and write resources/icons/tensordeck.png (256 px) and
tensordeck.ico (16-256 px, PNG-compressed entries, which Windows Vista and later read).

Run it again after changing the drawing: ``python scripts/make_icon.py``. The outputs are
committed, so building the app does not need this script.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def draw(size: int) -> QImage:
    """A deck of three cards on a blue tile; the front card carries a 3x3 tensor grid."""
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(size / 64, size / 64)  # draw on a 64-unit canvas
    tile = QLinearGradient(0, 0, 64, 64)
    tile.setColorAt(0, QColor("#2f81f7"))
    tile.setColorAt(1, QColor("#0b3d91"))
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(tile)
    p.drawRoundedRect(QRectF(2, 2, 60, 60), 12, 12)
    for i, alpha in enumerate((90, 160, 255)):  # back to front
        p.setBrush(QColor(255, 255, 255, alpha))
        p.drawRoundedRect(QRectF(18 - 4 * i, 12 + 4 * i, 32, 36), 4, 4)
    p.setBrush(QColor("#f5a623"))
    for row in range(3):
        for col in range(3):
            p.drawRoundedRect(QRectF(14 + 8.5 * col, 27 + 8.5 * row, 6.5, 6.5), 1.2, 1.2)
    p.end()
    return image


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data)


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose entries are PNGs (header, one directory entry per size, the data)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, png in pngs.items():
        side = size % 256  # 0 means 256 in an ICO directory entry
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    return header + entries + blobs


def main() -> int:
    pngs = {size: png_bytes(draw(size)) for size in ICO_SIZES}
    ICONS.mkdir(parents=True, exist_ok=True)
    (ICONS / "tensordeck.png").write_bytes(pngs[256])
    (ICONS / "tensordeck.ico").write_bytes(ico_bytes(pngs))
    print(f"wrote {ICONS / 'tensordeck.png'} and {ICONS / 'tensordeck.ico'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
