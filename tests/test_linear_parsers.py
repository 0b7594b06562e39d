"""Every parser of text TensorDeck did not write is linear in its input: on the worst-case
inputs of tests/worst_cases.py (the ones bench/parsers_worst_case.py times at 10 MB) it gives
the right output. No timing is asserted: the sizes are such that a quadratic parser takes
minutes and fails on the timeout, while a linear one takes well under a second."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor.explain import explain
from core.output import LineSplitter
from tests.worst_cases import CASES, module_patterns, pathological

#: ~1 MB: a parser that reads its input again for each of its characters or lines needs
#: 10^11-10^12 steps here (the old splitter took 154 s on 200 KB of \b).
SIZE = 1_000_000
#: A pattern searched in 100,000 characters: quadratic backtracking is 10^10 steps.
PATTERN_TEXT = 100_000


@pytest.mark.timeout(30)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_parser_gives_the_right_output_on_its_worst_input(case):
    data = case.make(SIZE)
    case.check(data, case.run(data))


PATTERNS = module_patterns()


@pytest.mark.timeout(30)
@pytest.mark.parametrize("rx", PATTERNS, ids=[p.pattern[:60] for p in PATTERNS])
def test_no_pattern_backtracks_over_what_it_read(rx):
    """Each pattern alone, searched in runs of its own words and of what its quantifiers take
    (a line of "NCCL NCCL ...", 100,000 digits, blanks, dotted names): it ends, and where it
    finds a match, the match is in the text."""
    for text in pathological(rx, PATTERN_TEXT):
        found = rx.search(text)
        assert found is None or text[found.start():found.end()] == found.group()


def test_port_reserved_fires_on_the_socket_error_not_on_a_number():
    """Windows' 10013 (WSAEACCES) is the cause only where the text says it is the socket's
    error; a step, a loss or an epoch numbered 10013 says nothing about ports."""
    for line in ("step 10013/20000 loss=0.25", "loss 10013", "Epoch 10013/20000",
                 "10013 images found", "I0101 worker.cc:10013] step done", "port 10013 open"):
        ids = [f.id for f in explain(f"{line}\nImportError: libcudart.so.11.0: cannot open "
                                     "shared object file: No such file or directory")]
        assert "port-in-use" not in ids, (line, ids)
        assert ids[0] == "missing-cuda-runtime", (line, ids)
    for line in ("OSError: [WinError 10013] An attempt was made to access a socket in a way "
                 "forbidden by its access permissions",
                 "socket.error: [Errno 10013] Permission denied",
                 '{"description":"OS Error","syscall":"bind","wsa_error":10013}',
                 "E0101 tcp_server_windows.cc:123] bind failed: error code 10013",
                 "WSAEACCES"):
        finding = next(f for f in explain(line) if f.id == "port-in-use")
        assert "reserved" in finding.title.lower() or "windows" in finding.title.lower(), line


@settings(max_examples=200, deadline=None)
@given(number=st.integers(min_value=0, max_value=10**9),
       words=st.lists(st.sampled_from(["step", "loss", "Epoch", "images", "/", "=", ":", "-",
                                       "batch", "id", "port", "[", "]"]), max_size=6))
def test_a_bare_10013_never_makes_the_port_finding(number, words):
    text = " ".join([*words, "10013", *words, str(number)])
    assert "port-in-use" not in [f.id for f in explain(text)], text


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"")),
       cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=8))
def test_the_splitter_gives_the_same_lines_however_the_output_is_read(data, cuts):
    """Reads cut anywhere (in a UTF-8 character, between \\b and \\r) give the lines one read
    gives: the splitter's state between reads is exactly the text it has not finished."""
    whole = LineSplitter()
    expected = whole.feed(data)[0] + whole.close()
    splitter, lines = LineSplitter(), []
    edges = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    for start, end in itertools.pairwise(edges):
        lines += splitter.feed(data[start:end])[0]
    assert lines + splitter.close() == expected


def test_the_patterns_come_from_every_parser():
    """The sweep above reads the doctor's rules, its context, the progress parser, the noise
    list and the sanitizers: a new table of patterns is not left out unnoticed."""
    sources = {p.pattern for p in PATTERNS}
    assert any("NCCL" in s for s in sources) and any("tensorflow" in s for s in sources)
    assert any("step" in s for s in sources) and any("oneDNN" in s for s in sources)
    assert any("\x1b" in s for s in sources)
    assert len(PATTERNS) > 100
    assert all(isinstance(p, re.Pattern) for p in PATTERNS)
