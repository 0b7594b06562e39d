"""WSL2 as a place to train from Windows: find ``wsl.exe`` and its distributions
(:mod:`core.wsl.distros`), name interpreters inside them (``wsl://DISTRO/path``) and reach
Windows files from there (:mod:`core.wsl.paths`), run programs there (:mod:`core.wsl.command`),
and find the Pythons with TensorFlow inside them (:mod:`core.wsl.discover`).

Nothing here imports Qt; on Linux the same code runs with the tests' stand-in ``wsl.exe``."""
