"""The environment variable that sends a Slurm task's stand-in through the cluster's login node:
core.slurm.login sets it (the node, the task's environment and folder there), core.slurm.stand_in
pops it. A module of its own, so that neither imports the other: the stand-in of a local run
never loads the SSH machinery, and the login node's host needs nothing of the stand-in."""

#: The spec of a step run through the login node (core.slurm.login.LoginSlurm.stand_in_env).
LOGIN_VARIABLE = "TENSORDECK_SLURM_LOGIN"
