"""Make a working TensorFlow environment for this machine (``tensordeck env create`` and the
Machine view's button).

- ``plan``: the machine's facts (OS, driver's CUDA, GPUs, Pythons, conda) -> the TensorFlow
  release that will use the GPU, how to get it, the commands and the download size;
- ``build``: runs a plan's commands with streamed output and cancel, leaves nothing
  half-made, then probes the new interpreter for real and registers it for training;
- ``wsl_facts`` / ``wsl_folder``: the same inside a WSL 2 distribution, through wsl.exe (its
  python3 and home folder read there; the folder, the steps and the removal there);
- ``command``: the CLI face.
"""
