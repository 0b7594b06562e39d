"""TensorDeck's core: config, topology, supervisor, doctor. Never imports Qt or TensorFlow."""

__version__ = "0.1.0"
