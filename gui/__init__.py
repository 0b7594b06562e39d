"""TensorDeck's desktop window (PySide6), a thin face over ``core``.

Only this package may import Qt.
"""
