"""Training interpreters: finding them, probing them in a child process, and the environment a
task started with one of them needs (conda/venv activation without a shell).

TensorFlow is never imported here: every look inside an interpreter happens in its own child.
"""
