"""Runs on a Slurm cluster: :mod:`core.slurm.launch` (check, allocate, place: ``--slurm``),
:mod:`core.slurm.stand_in` (a task's local process) and :mod:`core.slurm.batch` (the sbatch
export). Never imported by the plan (core.topology) nor by a run without ``--slurm``."""
