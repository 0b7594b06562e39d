"""A project's protocol buffer modules that were never generated (``protos-not-compiled``).

Projects such as the Object Detection API (tensorflow/models) keep ``.proto`` files in the
repository and ask the user to turn them into ``*_pb2.py`` modules with ``protoc`` before the
first run; skipped, or run with a protoc too old for the files, every import of them fails
("cannot import name 'string_int_label_map_pb2'"). TensorFlow's and protobuf's own ``_pb2``
modules are not this: they come built in their wheels (a broken or mixed install).
"""

from __future__ import annotations

import re

from core.doctor.context import TextContext
from core.doctor.fixes import finding_title
from core.doctor.scores import Scores

# Python 3 quotes the names ("cannot import name 'x_pb2' from 'pkg.protos' (...)", "No module
# named 'pkg.protos.x_pb2'"); Python 2 does not ("cannot import name x_pb2").
_PB2_FAILED = re.compile(r"cannot import name '?(\w+_pb2)\b'?(?: from '?([A-Za-z_][\w.]*)'?)?|"
                         r"No module named '?((?:[A-Za-z_]\w*\.)+)?(\w+_pb2)\b", re.ASCII)
# The import a traceback shows ("from pkg.protos import x_pb2", "from pkg.x_pb2 import *"):
# Python 2 names no package ("cannot import name x_pb2") or only its last parts ("No module
# named core.framework.graph_pb2" for tensorflow.core.framework).
_PB2_IMPORT = re.compile(r"\b(?:from|import) ([A-Za-z_][\w.]* import \w+_pb2|"
                         r"[A-Za-z_][\w.]*_pb2)\b", re.ASCII)
# protoc's own error on a project's file ("object_detection/protos/x.proto:11:3: Expected ...").
_PROTOC_ERROR = re.compile(r"^([A-Za-z_][\w./\\-]*)[/\\][\w-]+\.proto:\d+:\d+: ", re.ASCII)
# Packages whose _pb2 modules ship built: TensorFlow, protobuf, TensorBoard, and TensorFlow's
# proto packages as Python 2 names them, without "tensorflow." ("core.framework").
_SHIPPED = re.compile(r"(?:tensorflow|tensorboard|google)(?:\.|$)|"
                      r"core\.(?:framework|protobuf|example|util|profiler)(?:\.|$)", re.ASCII)


def protos_rules(ctx: TextContext, scores: Scores) -> None:
    """Score ``protos-not-compiled`` where the text shows it (see the module's docstring)."""
    if lines := ctx.lines_matching(_PROTOC_ERROR, 2):
        m = _PROTOC_ERROR.match(lines[0])
        assert m is not None
        scores.add("protos-not-compiled", 88, lines, protos=m.group(1).replace("\\", "/"),
                   protoc="failed")
        return
    for line in ctx.lines_matching(_PB2_FAILED, 3):
        m = _PB2_FAILED.search(line)
        assert m is not None
        imported = _imported_from(ctx)
        package = m.group(2) or (m.group(3) or "").rstrip(".") or imported
        if _SHIPPED.match(package) or _SHIPPED.match(imported):
            continue
        scores.add("protos-not-compiled", 92, line, protos=package.replace(".", "/"),
                   title=finding_title("protos-not-compiled.module",
                                       module=m.group(1) or m.group(4)))
        return


def _imported_from(ctx: TextContext) -> str:
    """The package the text's import of a _pb2 module takes it from, or ""."""
    for line in ctx.lines_matching(_PB2_IMPORT, 1):
        if m := _PB2_IMPORT.search(line):
            path = m.group(1)
            return path.split(" import ")[0] if " import " in path else path.rpartition(".")[0]
    return ""
