"""Run at every start of a task's interpreter (this folder is first on its PYTHONPATH).

On Windows it starts TensorDeck's graceful-stop listener (tensordeck_runtime.listen_for_stop);
elsewhere, and outside TensorDeck, it does nothing. Then it runs the ``sitecustomize`` this one
shadows, if the interpreter has one (Debian's Pythons and some conda builds do).
"""

import os
import sys


def _chain() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


if os.environ.get("TENSORDECK_STOP_EVENT"):
    import tensordeck_runtime

    tensordeck_runtime.listen_for_stop()
_chain()
