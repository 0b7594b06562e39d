"""TensorDeck's desktop window (PySide6). Only this package may import Qt."""
