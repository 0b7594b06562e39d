"""The doctor reads ASCII tokens (names, versions, paths) wherever they stand: glued to Chinese
text ("安装tensorflow2.4", "返回False": in Unicode's sense a CJK character is a word character,
so ``\\b`` saw no boundary there) or typed full-width by a CJK input method ("ＣＵＤＡ１１．２")."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor.context import read_context
from core.doctor.facts import read_facts

DOCTOR = Path(__file__).resolve().parent.parent / "core" / "doctor"
#: The modules whose patterns do not read the pasted text: wording.py (its model's tokens are
#: Unicode words on purpose), depwalk.py and scriptscan.py (binaries, Python source),
#: machine.py and wsl_checks.py (tools' own output on this machine), linesearch.py (it compiles
#: the callers' patterns again with their own flags). Every other module of the doctor does, a
#: new one included.
NOT_TEXT = frozenset({"wording", "depwalk", "scriptscan", "machine", "wsl_checks", "linesearch"})
TEXT_MODULES = tuple(sorted(p.stem for p in DOCTOR.glob("*.py") if p.stem not in NOT_TEXT))
#: re's functions, and the position of their flags argument.
FLAGS_AT = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "finditer": 2,
            "findall": 2, "split": 3, "sub": 4, "subn": 4}

cjk = st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=5)


def _flags(call: ast.Call) -> ast.expr | None:
    keyword = next((k.value for k in call.keywords if k.arg == "flags"), None)
    position = FLAGS_AT[call.func.attr]  # type: ignore[attr-defined]
    return keyword or (call.args[position] if len(call.args) > position else None)


def test_every_pattern_of_the_text_rules_reads_ascii_tokens():
    unflagged = []
    for name in TEXT_MODULES:
        source = (DOCTOR / f"{name}.py").read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in FLAGS_AT):
                flags = _flags(node)
                if flags is None or "ASCII" not in ast.unparse(flags):
                    unflagged.append(f"{name}.py:{node.lineno}")
    assert not unflagged, "re calls without re.ASCII: " + ", ".join(unflagged)


def _full_width(text: str) -> str:
    """Letters, digits and dots as a CJK input method types them (U+FF21 ...)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and (c.isalnum() or c == ".") else c
                   for c in text)


def _read(text: str):
    ctx = read_context(text)
    return ctx, read_facts(ctx)


@settings(max_examples=60, deadline=None)
@given(before=cjk, after=cjk, tf=st.sampled_from(["1.15", "2.4", "2.10", "2.16"]),
       cuda=st.sampled_from(["9.0", "10.1", "11.2", "11.8", "12.3"]),
       python=st.sampled_from(["3.7", "3.10", "3.11", "3.12"]), wide=st.booleans())
def test_versions_glued_to_chinese_text_are_read(before, after, tf, cuda, python, wide):
    text = "\n".join(f"{before}{name}{version}{after}" for name, version in
                     (("tensorflow", tf), ("cuda", cuda), ("python", python)))
    ctx, facts = _read(_full_width(text) if wide else text)
    assert ".".join(map(str, (ctx.tf_version or facts.tf_version_said or ())[:2])) == tf
    assert cuda in facts.cuda_stated
    assert ".".join(map(str, ctx.python or ())) == python


@settings(max_examples=40, deadline=None)
@given(before=cjk, after=cjk, wide=st.booleans())
def test_no_gpu_said_after_chinese_text_is_read(before, after, wide):
    text = f"{before}tf.test.is_gpu_available(){after}False"
    _, facts = _read(_full_width(text) if wide else text)
    assert facts.no_gpu


def test_a_no_break_space_from_a_web_page_is_a_space_and_chinese_punctuation_stays():
    _, facts = _read("Could\u00a0not load dynamic library 'cudart64_110.dll'; dlerror:"
                     "\u00a0cudart64_110.dll not found")
    assert "cudart64_110.dll" in facts.libraries_missing
    ctx = read_context("我的显卡是ＲＴＸ３０９０，怎么办？")
    assert ctx.lines == ["我的显卡是RTX3090，怎么办？"]
