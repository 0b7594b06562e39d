"""Python packages by the modules they provide, and the doctor's rule for a module that is not
installed at all ("No module named 'commentjson'"): the package that provides it is missing
from the Python that runs the code, which installing it there fixes."""

from __future__ import annotations

import re

from core.doctor.context import TextContext
from core.doctor.fixes import finding_title
from core.doctor.scores import Scores

# Modules whose package has another name on PyPI; any other module's is its name with "-".
_DISTRIBUTIONS = {
    "google": "protobuf", "protobuf": "protobuf", "absl": "absl-py", "grpc": "grpcio",
    "cv2": "opencv-python", "sklearn": "scikit-learn", "skimage": "scikit-image",
    "PIL": "Pillow", "yaml": "PyYAML", "attr": "attrs", "dateutil": "python-dateutil",
    "bs4": "beautifulsoup4",
}
# TensorFlow's own requirements (2.10-2.21) and the packages most often installed beside it.
# A module neither here nor in a site-packages frame is the user's own code, not a dependency.
KNOWN_DEPENDENCIES = frozenset({
    "numpy", "google", "h5py", "ml_dtypes", "keras", "tf_keras", "absl", "typing_extensions",
    "wrapt", "grpc", "opt_einsum", "gast", "termcolor", "flatbuffers", "tensorboard", "jax",
    "jaxlib", "scipy", "six", "astunparse", "libclang", "packaging", "optree", "rich", "namex",
    "requests", "urllib3", "setuptools", "tensorflow_io_gcs_filesystem", "tensorflow_estimator",
})

# Python 3 quotes the whole name ("No module named 'google.protobuf'"); Python 2 names the
# last part alone, unquoted ("No module named protobuf"), or the whole dotted path when its
# top-level package is missing ("No module named tensorpack.dataflow").
_NO_MODULE = re.compile(r"No module named (?:'([A-Za-z][\w.]*\w)'|([A-Za-z][\w.]*\w)(?![\w.']))",
                        re.ASCII)
# The folders of TensorFlow's own package (tensorflow/<one of these>/...) and its __init__
# (module names: a file name in a string reads as a file the frozen app must ship): a traceback
# frame in TF's source tree, and the names Python 2 gives relative to TF ("core.framework").
TF_PACKAGE_PARTS = frozenset({"__init__", "python", "core", "contrib", "keras", "compiler",
                              "lite", "tools", "_api"})
# Modules the doctor's other rules read: TensorFlow and Keras (tf-not-installed, a mix of
# releases, Keras 3), TF's native module (its import failing).
_OTHER_RULES = re.compile(r"tensorflow|tf_keras|keras$|keras\.|_?pywrap", re.IGNORECASE | re.ASCII)


# Ops of TensorFlow's add-on libraries, registered only once the library is imported
# (tensorflow_text's CaseFoldUTF8, its SentencePiece and WordPiece tokenizers, TensorFlow
# Addons' "Addons>..."): not TF's own ops.
ADD_ON_OPS = r"(?:CaseFold|Normalize|RegexSplit|\w*Wordpiece|\w*Tokeni[sz]e|Sentencepiece|\w*>)"
_ADD_ON_OP = re.compile(r"(?:Op type not registered '|No op named )(" + ADD_ON_OPS + r"[\w>]*)",
                        re.ASCII)


def distribution(module: str) -> str:
    """The PyPI package that provides ``module`` ("google.protobuf" -> "protobuf")."""
    top = module.split(".")[0]
    return _DISTRIBUTIONS.get(module, _DISTRIBUTIONS.get(top, top.replace("_", "-")))


def _not_installed(ctx: TextContext, match: re.Match) -> str | None:
    """The module a "No module named" says is not installed at all: a top-level module (a
    missing submodule of an installed package is an API of another release), protobuf's, or
    under Python 2 (which names only the last part) a dependency the doctor knows."""
    quoted, bare = match.group(1), match.group(2)
    name = quoted or bare
    if _OTHER_RULES.match(name):
        return None
    if quoted:
        return name if "." not in name or name.startswith("google.protobuf") else None
    if "." in name:
        # Python 2: the top-level package is missing (dev c1444), unless the name is relative
        # to the package importing it: TF's own subpackages (c625, Python in TF's source tree:
        # "No module named core.framework.graph_pb2"), or one the code asks for inside another.
        top = name.split(".")[0]
        inside = ctx.lines_matching(r"\w\." + re.escape(name) + r"\b", 1)
        return None if inside or top in TF_PACKAGE_PARTS else top
    return name if name in KNOWN_DEPENDENCIES or name in _DISTRIBUTIONS else None


def missing_module_rules(ctx: TextContext, scores: Scores) -> None:
    """A module no installed package provides. Surer when it is the output's last error (what
    failed), not a line among others (a CUDA library's warning before it is not the cause)."""
    for m in filter(None, map(_NO_MODULE.search, ctx.lines_matching(_NO_MODULE, 2))):
        module, line = _not_installed(ctx, m), m.string
        # "No module named 'keras' and 'tensorflow'": TensorFlow's absence (another rule's).
        if module and "tensorflow" not in line[m.end():m.end() + 30].lower():
            package = distribution(module)
            scores.add("module-not-installed", 90 if line == ctx.last_exception() else 72, line,
                       module=module, package=package,
                       title=finding_title("module-not-installed.named", module=module,
                                           package=package))
            return


def add_on_ops_rules(ctx: TextContext, scores: Scores) -> None:
    """A model that uses an add-on's ops in a program that has not imported the add-on (TF Hub's
    BERT preprocessing and tensorflow_text, dev c1243): its ops are registered on import."""
    for line in ctx.lines_matching(_ADD_ON_OP, 1):
        if m := _ADD_ON_OP.search(line):
            addons = m.group(1).startswith("Addons>")
            module = "tensorflow_addons" if addons else "tensorflow_text"
            scores.add("addon-ops-not-loaded", 90, line, module=module,
                       package=distribution(module),
                       title=finding_title("addon-ops-not-loaded.op", op=m.group(1),
                                           package=distribution(module)))
