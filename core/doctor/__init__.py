"""The environment doctor: why TensorFlow does not import or see the GPU, from evidence, with
the commands that fix it.

- ``explain``: a pasted output -> findings (rules over TF / loader / pip / gRPC messages);
- ``machine``: the NVML report and probed interpreters -> findings;
- ``depwalk``: the import tables of TF's native module, walked like the OS loader;
- ``scriptscan``: a training script's APIs vs. the interpreter's TensorFlow;
- ``prerun``: the launcher's cheap checks before a run; ``kb``: the compatibility tables.
"""
