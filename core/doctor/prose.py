"""Questions and complaints pasted as prose ("Keras 3 breaks tensorflow_hub models", "numpy 2.0
causes issues", "Can't install tensorflow on Python 3.13"): a subject the knowledge base knows
the trouble of, and a word of trouble, on one line. Below any cause an output states, so a
log's own error always wins; above "no error found", which is what such a text got before.
"""

from __future__ import annotations

import re

from core.doctor.context import TextContext
from core.doctor.facts import then
from core.doctor.fixes import finding_title
from core.doctor.scores import Scores

# Words of trouble, in a question or a complaint.
# Word endings are bounded (\w{0,12}, not \w*): from each start in a run of one word repeated,
# \w* would read the whole run again (quadratic; the Windows lane's worst-case test caught it).
_TROUBLE = (r"\b(?:not work\w{0,12}|does ?n[o']?t work|is ?n[o']?t working|broke\w{0,12}|"
            r"break\w{0,12}|fail\w{0,12}|errors?|issues?|problems?|can(?:'t| ?not)|"
            r"could ?n[o']?t|unable|no longer|incompatib\w{0,12}|compatib\w{0,12}|"
            r"crash\w{0,12})\b")


_TROUBLE_RX = re.compile(_TROUBLE, re.IGNORECASE | re.ASCII)
_KERAS_AND_TF = re.compile(then(r"\bkeras\b", r"\b(?:tf|tensorflow)\b") + "|"
                           + then(r"\b(?:tf|tensorflow)\b", r"\bkeras\b"), re.IGNORECASE | re.ASCII)


def _said_with_trouble(subject: str) -> re.Pattern:
    """``subject`` and a word of trouble on one line, in either order."""
    return re.compile(then(subject, _TROUBLE) + "|" + then(_TROUBLE, subject),
                      re.IGNORECASE | re.ASCII)


# Keras 3 named, or TensorFlow upgraded to a release that installs it (2.16+).
_KERAS3 = _said_with_trouble(r"\bKeras ?3\b(?!\.\d)|\bkeras\s*(?:==\s*)?v?3\.\d|"
                             r"\b(?:upgrad|updat)\w{0,12}\s+(?:to\s+)?(?:tf|tensorflow)\s*v?"
                             r"2\.(?:1[6-9]|[2-9]\d)\b")
# NumPy 2, which every TensorFlow before 2.18 was built without.
_NUMPY2 = _said_with_trouble(r"\bnumpy\s*(?:==|>=|version:?)?\s*v?2(?:\.\d{1,2}){0,2}\b(?!\.)")
# A Python version, and TensorFlow that will not install or is not offered for it.
_WONT_INSTALL = (r"can(?:'t| ?not) install|unable to install|fail\w{0,12} to install|"
                 r"(?:could|can)(?:n'?t| ?not) be installed|"
                 r"install\w{0,12}(?: [\w-]+){0,3} fail\w{0,12}|does ?n[o']?t support|"
                 r"not (?:yet )?(?:supported|available)|"
                 r"no (?:tensorflow )?(?:wheel|version|release)")
_A_PYTHON = r"\bpython\s?v?3\.\d{1,2}\b"
_PYTHON = re.compile(then(_A_PYTHON, _WONT_INSTALL) + "|" + then(_WONT_INSTALL, _A_PYTHON),
                     re.IGNORECASE | re.ASCII)


# A question about TensorFlow's GPU on Windows ("Are there any TensorFlow GPU for Windows?").
_WINDOWS_GPU = re.compile(then(r"\bGPU\b", r"\b(?:on|for|in|with|under) (?:native )?Windows\b")
                          + "|" + then(r"\bWindows\b", r"\bGPU (?:support|version|build)"),
                          re.IGNORECASE | re.ASCII)
# Keras and TensorFlow said not to fit ("TF 2.0 is not compatible with keras 2.2.4").
_INCOMPATIBLE = re.compile(r"\b(?:not compatible|incompatible)\b", re.IGNORECASE | re.ASCII)


# Two ways of starting Python, one that works and one that does not ("TF sees the GPUs on
# terminal, but not on jupyter lab"): the notebook or editor runs another Python or env.
_FRONT_END = re.compile(r"\b(?:jupyter|notebooks?|ipython|pycharm|spyder|vs ?code|"
                        r"visual studio code|IDE)\b", re.IGNORECASE | re.ASCII)
_SHELL = re.compile(r"\b(?:terminal|command line|command prompt|cmd|shell|console)\b",
                    re.IGNORECASE | re.ASCII)
_CONTRAST = re.compile(r"\b(?:but|not|only|while|whereas)\b|n't\b", re.IGNORECASE | re.ASCII)


def prose_rules(ctx: TextContext, scores: Scores) -> None:
    """Score the family a prose line names with its trouble."""
    if lines := ctx.lines_matching(_KERAS3, 2):
        scores.add("keras3-strategy-unsupported", 66, lines)
    if lines := ctx.lines_matching(_NUMPY2, 2):
        scores.add("mixed-tf-packages", 66, lines, numpy="downgrade")
    if "tensorflow" in ctx.text.lower() and (lines := ctx.lines_matching(_PYTHON, 2)):
        scores.add("python-unsupported", 66, lines)
    asked = [ln for ln in ctx.lines_matching(_WINDOWS_GPU, 2)
             if "?" in ln or _TROUBLE_RX.search(ln)]
    if asked and ctx.tf_at_least((2, 11)) is not False:
        scores.add("tf-windows-gpu-unsupported", 64, asked)
    if lines := [ln for ln in ctx.lines_matching(_INCOMPATIBLE, 3) if _KERAS_AND_TF.search(ln)]:
        scores.add("mixed-tf-packages", 66, lines)
    _front_end_rules(ctx, scores)


def _front_end_rules(ctx: TextContext, scores: Scores) -> None:
    """It works from the terminal and not from a notebook or an editor, or the other way."""
    if lines := [ln for ln in ctx.lines_matching(_FRONT_END, 3)
                 if _SHELL.search(ln) and _CONTRAST.search(ln)]:
        scores.add("conda-env-not-activated", 66, lines, front_end=True,
                   title=finding_title("conda-env-not-activated.front-end"))
