"""Data files that ship with TensorDeck: examples, knowledge base, icons, translations.

A package (not code) so that ``pip install`` and PyInstaller carry it; find files through
:func:`core.paths.resource`.
"""
