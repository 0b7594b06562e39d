"""Code written for an older release (``api-removed``): a name the installed TensorFlow, Keras
or library removed or moved since (``resources/kb/removed_apis.csv``): ``tf.mul`` (TF 1.0
renamed it ``tf.multiply``), ``Sequential.predict_classes`` (gone in TF 2.6),
``keras.wrappers.scikit_learn`` (TF 2.12), ``scipy.misc.imread`` (SciPy 1.3). TF 1's API under
TF 2 (``tf1-api-on-tf2``) and Keras 2 code under Keras 3 (``keras3-strategy-unsupported``) are
their own ids; a release too old for the code is ``tf-too-old``.
"""

from __future__ import annotations

import re

from core.doctor import kb
from core.doctor.context import TextContext
from core.doctor.fixes import finding_title
from core.doctor.scores import Scores

# The ways Python says a name is missing, Python 2's too (no quotes, no module).
_MODULE_ATTRIBUTE = re.compile(r"[Mm]odule '([\w.]+)' has no attribute '(\w+)'", re.ASCII)
_OBJECT_ATTRIBUTE = re.compile(r"'(\w+)' object has no attribute '(\w+)'", re.ASCII)
_CANNOT_IMPORT = re.compile(r"cannot import name '?(\w+)'?(?: from '?([\w.]+)'?)?", re.ASCII)
_NO_MODULE = re.compile(r"No module named '?([\w.]+)'?", re.ASCII)
# TF 2.11's new optimizers refuse the old ones' decay argument, and say so; they take lr but
# ignore it, with a warning (tensorflow/tensorflow#58831: the model then trains at the default
# rate). TF 2.3-2.10's own warning ("The `lr` argument is deprecated") is harmless: not this.
_DECAY = re.compile(r"\bdecay is deprecated in the new Keras optimizer", re.ASCII)
_LR_IGNORED = re.compile(r"\blr`? is deprecated(?: in Keras optimizer)?, please use "
                         r"`?learning_rate", re.ASCII)
# Where Keras lives: standalone, inside TF (public and private paths), tf-keras.
_KERAS = re.compile(r"(?:tensorflow\.(?:python\.)?keras|tf_keras|keras\.api\._v[12]\.keras|"
                    r"tensorflow\.keras\.api\._v[12]\.keras)(?=\.|$)", re.ASCII)
# TensorFlow's generated API modules.
_TF = re.compile(r"tensorflow\.(?:_api\.v[12]|compat\.v[12])(?=\.|$)", re.ASCII)
# TF 1's modules behind tf.train, tf.nn, tf.summary and tf.image, as Python names them.
_TF_MODULES = {"tensorflow.python.training.training": "tensorflow.train",
               "tensorflow.python.ops.nn": "tensorflow.nn",
               "tensorflow.python.summary.summary": "tensorflow.summary",
               "tensorflow.python.ops.image_ops": "tensorflow.image"}
# A model's class as Python names it: all of them are keras.Model.
_MODELS = frozenset({"Sequential", "Functional", "Model"})


def canonical(module: str) -> str:
    """The table's spelling of a module path: Keras as ``keras``, TF's API modules as
    ``tensorflow``."""
    module = _KERAS.sub("keras", _TF.sub("tensorflow", module), count=1)
    return _TF_MODULES.get(module, module)


def _known(api: str) -> kb.RemovedApi | None:
    """The table's row for ``api``, or for a removed module above it
    ("keras.wrappers.scikit_learn.KerasClassifier"); a removed name covers nothing under it
    (Keras 1's function ``keras.layers.merge`` is not Keras 2's module of that name)."""
    table = kb.removed_apis()
    parts = api.split(".")
    rows = ((i, table.get(".".join(parts[:i]))) for i in range(len(parts), 1, -1))
    return next((row for i, row in rows if row and (i == len(parts) or row.kind == "module")),
                None)


def removed_api(module: str, name: str) -> kb.RemovedApi | None:
    """The row of ``module.name`` when a release removed it."""
    return _known(f"{canonical(module)}.{name}")


def _by_last_name(ctx: TextContext, name: str) -> kb.RemovedApi | None:
    """Python 2 names no module ("cannot import name Merge", "'module' object has no attribute
    'mul'"): the row whose last part is ``name`` and whose call the text shows ("tf.mul(",
    "misc.imread", "import Merge"), when exactly one fits."""
    rows = [r for api, r in kb.removed_apis().items() if api.rsplit(".", 1)[-1] == name]
    shown = [r for r in rows if ctx.lines_matching(
        rf"\b{re.escape(r.shown.rsplit('.', 2)[-2])}\.{name}\b|\bimport {name}\b", 1)]
    return shown[0] if len(shown) == 1 else None


def _attribute_rows(ctx: TextContext) -> list[tuple[str, kb.RemovedApi | None]]:
    """"module 'tensorflow' has no attribute 'mul'", "'Sequential' object has no attribute
    'predict_classes'", Python 2's "'module' object has no attribute 'mul'"."""
    rows = [(line, removed_api(*m.groups())) for line in ctx.lines_matching(_MODULE_ATTRIBUTE, 4)
            if (m := _MODULE_ATTRIBUTE.search(line))]
    for line in ctx.lines_matching(_OBJECT_ATTRIBUTE, 4):
        if m := _OBJECT_ATTRIBUTE.search(line):
            owner, name = m.groups()
            rows.append((line, _known(f"keras.Model.{name}") if owner in _MODELS
                         else _by_last_name(ctx, name) if owner == "module" else None))
    return rows


def _import_rows(ctx: TextContext) -> list[tuple[str, kb.RemovedApi | None]]:
    """"cannot import name 'Merge' from 'keras.layers'" (Python 2: no module), "No module named
    'sklearn.cross_validation'"."""
    rows = []
    for line in ctx.lines_matching(_CANNOT_IMPORT, 4):
        if m := _CANNOT_IMPORT.search(line):
            name, module = m.groups()
            rows.append((line, removed_api(module, name) if module else _by_last_name(ctx, name)))
    for line in ctx.lines_matching(_NO_MODULE, 4):
        if (m := _NO_MODULE.search(line)) and (row := _known(canonical(m.group(1)))):
            # A module missing is a removed module's, never a removed function's of its name.
            rows.append((line, row if row.kind == "module" else None))
    return rows


def _removed_names(ctx: TextContext) -> list[tuple[str, kb.RemovedApi]]:
    """The lines that name a removed API, with its row."""
    found = [(line, row) for line, row in [*_attribute_rows(ctx), *_import_rows(ctx)] if row]
    if lines := ctx.lines_matching(_DECAY, 1):
        found.append((lines[0], kb.removed_apis()["keras.optimizers.Optimizer(decay=...)"]))
    return found


def _lr_ignored(ctx: TextContext, scores: Scores) -> None:
    """A warning, not an error: any error the text shows outranks it."""
    if lines := ctx.lines_matching(_LR_IGNORED, 1):
        row = kb.removed_apis()["keras.optimizers.Optimizer(lr=...)"]
        scores.add("api-removed", 60, lines, api=row.api,
                   title=finding_title("api-removed.lr-ignored"))


def _still_there(ctx: TextContext, row: kb.RemovedApi) -> bool:
    """The TensorFlow the text states predates the removal: the name failed for another reason."""
    removed = kb.parse_version(row.removed_in)
    return row.package == "tensorflow" and removed is not None and ctx.tf_at_least(removed) is False


def removed_api_rules(ctx: TextContext, scores: Scores) -> None:
    """Score ``api-removed`` for the first removed name the text shows (see the docstring)."""
    _lr_ignored(ctx, scores)
    for line, row in _removed_names(ctx):
        if _still_there(ctx, row):
            continue
        scores.add("api-removed", 94, line, api=row.api,
                   title=finding_title("api-removed.name", name=row.shown,
                                       package=row.package, release=row.removed_in))
        return
