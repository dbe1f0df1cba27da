"""User text made inert where it is shown: never a spreadsheet formula in a CSV cell, never a terminal
escape on the screen, never a line without end in an error.

- A CSV cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is one a
  spreadsheet evaluates as a formula (``=HYPERLINK(...)``, ``@SUM(...)``, ``-2+3``, DDE's
  ``=cmd|' /C calc'!A0``). Such a cell is written with an apostrophe before it (:func:`inert_cell`),
  which a spreadsheet shows as text; a number (``-2``, ``+3.5``, ``-1,5`` in a decimal-comma file,
  ``-1e-3``, ``-5%``) stays a number, as it came.
- Control characters (ESC, NUL, backspace, ...) and the bidirectional controls (a right-to-left
  override turns ``exe.txt`` into what reads as ``txt.exe``) are shown escaped on a terminal
  (:func:`shown`): ``\\x1b``, ``\\u202e``; :func:`control_in` finds one in a name that has no use for
  them (a scenario's member or path), to refuse it.
- A value shown in a one-line message is cut to :data:`LONGEST_VALUE` characters (:func:`clipped`),
  with how long it was.

Foundation of the foundation: :mod:`qmodel.errors` shows every value through here.
"""

from __future__ import annotations

import re

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d[\d.,]*|[.,]\d+)(?:[eE][+-]?\d+)?%?")
# C0 and C1 controls and DEL, and the bidirectional controls: embeddings, overrides, isolates, marks
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_KEPT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def inert_cell(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet will not evaluate: an apostrophe before a cell that begins as
    a formula does (:data:`FORMULA_STARTS`) and is no number; any other text as it is."""
    if text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def is_formula_like(text: str) -> bool:
    """Whether :func:`inert_cell` changes ``text``."""
    return text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text)


def shown(text: str, one_line: bool = False) -> str:
    """``text`` with its control and bidirectional characters escaped (``\\x1b``, ``\\u202e``, ``\\t``):
    what a terminal shows of it is what it holds. A line feed stays (a table's caption has lines) unless
    ``one_line``."""
    if text.isprintable() and not _CONTROL.search(text):
        return text
    if one_line:
        return _CONTROL.sub(_escape, text)
    return "\n".join(_CONTROL.sub(_escape, line) for line in text.split("\n"))


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if character in _KEPT:
        return _KEPT[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def control_in(name: str) -> str | None:
    """The first control or bidirectional character of ``name``, escaped (``\\x1b``), or None."""
    found = _CONTROL.search(name)
    return None if found is None else _escape(found)


LONGEST_VALUE = 120  # characters of a value shown in a one-line message


def clipped(text: str, longest: int = LONGEST_VALUE) -> str:
    """``text`` shown (:func:`shown`) and cut to about ``longest`` characters, its middle left out with how
    many it had: a message stays one readable line whatever was given (a 100,000-character cell), and keeps
    both ends (a long path's start and what follows it: ``/tmp/…/far.xlsx: a sheet of 1,048,576 rows``)."""
    escaped = shown(text, one_line=True)
    if len(escaped) <= longest:
        return escaped
    head = (longest - 30) // 2
    return f"{escaped[:head]}… ({len(text):,} characters) …{escaped[-(longest - 30 - head) :]}"


def name_refused(name: str, reserved: tuple[str, ...] = ()) -> str | None:
    """Why ``name`` cannot name a thing of a file (a scenario's member, CF or site), or None: a control or
    bidirectional character (which would make it show as another name), or one of ``reserved`` in any
    case (``all``, the name of the row of all members together)."""
    found = control_in(name)
    if found is not None:
        return f"it holds the control character {found}"
    if name.strip().lower() in reserved:
        return f"{name.strip().lower()!r} names the row of all of them together"
    return None
