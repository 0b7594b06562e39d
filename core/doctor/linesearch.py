"""The lines of a text that a pattern matches, found fast in a text of any size.

The doctor's rules are ~60 patterns, most of them case-insensitive alternations; Python's
``re`` tries such a pattern at every character (40-700 ns each here), so searching 20,000
lines with every rule took seconds. Each pattern's match must contain one of a few literal
words (its *needles*, read off the parsed pattern: "WSAEACCES", "forbidden by its access
permissions"); ``str.find`` finds those at memory speed, and only the lines holding one are
searched with the pattern itself. A pattern whose needles cannot be told is searched over the
whole text once. Either way each line is tried at most once per pattern: linear in the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import cache

try:  # Python 3.11+
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

# Characters re's IGNORECASE takes for an ASCII letter that str.lower() does not turn into it.
_FOLD = str.maketrans({"\u0131": "i", "\u017f": "s"})
_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT)


def _fold(text: str) -> str:
    return text.lower().translate(_FOLD)


def _joined(lines: Sequence[str]) -> tuple[str, list[int]]:
    """The lines joined by newlines, and where each starts."""
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return "\n".join(lines), starts


class LineIndex:
    """Lines to search, each at most once per pattern (see the module's docstring)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._plain: tuple[str, list[int]] | None = None
        self._folded: tuple[str, list[int]] | None = None

    def matching(self, rx: re.Pattern, limit: int) -> list[str]:
        """The first ``limit`` lines ``rx`` matches, in order."""
        needles = _needles(rx)
        found: list[str] = []
        if needles is None:
            candidates = self._searched(_multiline(rx))
        else:
            candidates = self._holding(needles, bool(rx.flags & re.IGNORECASE))
        for i in candidates:
            if len(found) >= limit:
                break
            if rx.search(self.lines[i]):
                found.append(self.lines[i])
        return found

    def _text(self, folded: bool) -> tuple[str, list[int]]:
        if not folded:
            if self._plain is None:
                self._plain = _joined(self.lines)
            return self._plain
        if self._folded is None:
            self._folded = _joined([_fold(line) for line in self.lines])
        return self._folded

    def _searched(self, whole: re.Pattern):
        """Indexes of the lines where a search of the whole text finds ``whole``, in order."""
        text, starts = self._text(False)
        pos = 0
        while pos <= len(text) and (m := whole.search(text, pos)):
            i = bisect_right(starts, m.start()) - 1
            yield i
            pos = starts[i] + len(self.lines[i]) + 1

    def _holding(self, needles: tuple[str, ...], folded: bool):
        """Indexes of the lines holding one of ``needles``, in order. Each needle's next place
        is found once and kept until the search passes it: every needle reads the text once."""
        text, starts = self._text(folded)
        ahead = {needle: text.find(needle) for needle in needles}
        while True:
            places = [at for at in ahead.values() if at >= 0]
            if not places:
                return
            i = bisect_right(starts, min(places)) - 1
            yield i
            after = starts[i + 1] if i + 1 < len(starts) else len(text)
            for needle, at in ahead.items():
                if 0 <= at < after:
                    ahead[needle] = text.find(needle, after)


class TextIndex:
    """One text searched whole: a pattern none of whose needles the text holds is not run (a
    case-insensitive alternation costs ~0.2 s a megabyte; ``str.find`` ~0.2 ms)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._folded: str | None = None

    def may_match(self, rx: re.Pattern) -> bool:
        needles = _needles(rx)
        if needles is None:
            return True
        if rx.flags & re.IGNORECASE:
            if self._folded is None:
                self._folded = _fold(self.text)
            return any(needle in self._folded for needle in needles)
        return any(needle in self.text for needle in needles)

    def search(self, rx: re.Pattern) -> re.Match | None:
        return rx.search(self.text) if self.may_match(rx) else None

    def finditer(self, rx: re.Pattern) -> Iterator[re.Match]:
        return rx.finditer(self.text) if self.may_match(rx) else iter(())

    def findall(self, rx: re.Pattern) -> list:
        return rx.findall(self.text) if self.may_match(rx) else []


@cache
def _multiline(rx: re.Pattern) -> re.Pattern:
    """``rx`` with ``^`` and ``$`` at line breaks, for a search of the joined lines."""
    return re.compile(rx.pattern, rx.flags | re.MULTILINE)


@cache
def _needles(rx: re.Pattern) -> tuple[str, ...] | None:
    """Literal words one of which each match of ``rx`` holds (folded when it ignores case);
    None when the pattern does not tell (then every line may match)."""
    try:
        parsed = _sre_parse.parse(rx.pattern, rx.flags)
    except Exception:  # another Python's parser: search without needles
        return None
    words = _sequence(list(parsed))
    if not words:
        return None
    return tuple(dict.fromkeys(_fold(w) if rx.flags & re.IGNORECASE else w for w in words))


def _sequence(items: list) -> list[str] | None:
    """The needles of a sequence of parsed items: its literal run or group whose shortest
    needle is longest (every match holds each of them; one is enough)."""
    best: list[str] | None = None
    run: list[str] = []

    def consider(words: list[str] | None) -> None:
        nonlocal best
        if words and (best is None or min(map(len, words)) > min(map(len, best))):
            best = words

    for op, arg in items:
        if op is _sre.LITERAL:
            run.append(chr(arg))
            continue
        consider(["".join(run)] if run else None)
        run = []
        if op is _sre.BRANCH:
            consider(_branches(arg[1]))
        elif op is _sre.SUBPATTERN and not (arg[1] or arg[2]):  # no inline flags
            consider(_sequence(list(arg[3])))
        elif op in _REPEATS and arg[0] >= 1:
            consider(_sequence(list(arg[2])))
    consider(["".join(run)] if run else None)
    return best


def _branches(alternatives: list) -> list[str] | None:
    """The needles of an alternation: each alternative's, or None if one has none."""
    words: list[str] = []
    for alternative in alternatives:
        found = _sequence(list(alternative))
        if not found:
            return None
        words += found
    return words
