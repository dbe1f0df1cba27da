"""CSV as bytes in numpy arrays, whole columns at a time: where each row and cell lies, plain decimal
cells read, numbers written as ``%.12g``, result cells spliced into the rows (batch's fast path,
:mod:`qmodel.batch`).

Every function here either gives exactly what the per-cell Python route gives (``float(cell)``,
``"%.12g" % value``, :mod:`csv`'s reading of a row) or says which rows it cannot read, for that
route to read: a plain decimal of up to 15 digits is the integer of its digits divided by a power
of ten, both exact in binary64, so IEEE division rounds it as ``float`` does; a value is written
from its 12 significant digits found by scaling where the scaled product is clearly not half-way
between two integers. Text is UTF-8, whose multi-byte characters never contain an ASCII byte, so
separators, quotes and line ends are found by byte.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

NEWLINE, QUOTE, POINT, MINUS, PLUS, ZERO = (ord(c) for c in '\n".-+0')
_BLANK = (ord(" "), ord("\t"))
CHUNK = 1 << 16  # cells worked on at a time: their byte matrices and temporaries stay a few megabytes
_DIGITS = 15  # at most 15 digits: the integer of the digits is exact in binary64 (< 2**53)
_WIDEST = 16  # two 8-byte words: 15 digits and a point or a sign
_POW10 = 10 ** np.arange(_WIDEST + 1, dtype=np.int64)
_POW10F = 10.0 ** np.arange(23)  # exact in binary64 up to 1e22
_FOUR_DIGITS = (np.arange(10_000)[:, None] // np.array([1000, 100, 10, 1]) % 10 + ZERO).astype(np.uint8)


class Layout(NamedTuple):
    """Rows and cells of CSV text: each row's start and its line end's offset, the blank rows (only
    separators, spaces and tabs: no cell filled in) and, for the other rows, the offsets of their
    ``width - 1`` separators (one row of the matrix per row that is not blank)."""

    starts: np.ndarray
    ends: np.ndarray
    blank: np.ndarray
    separators: np.ndarray

    def cell_bounds(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) offsets of every row's cell in ``column`` (0-based); a blank row's cell is empty."""
        width = self.separators.shape[1] + 1
        if 0 < column < width - 1 and self.separators.shape[0] == self.starts.size:  # no blank row
            return self.separators[:, column - 1] + 1, self.separators[:, column]
        filled = ~self.blank
        starts, ends = self.starts.copy(), self.starts.copy()
        starts[filled] = self.starts[filled] if column == 0 else self.separators[:, column - 1] + 1
        ends[filled] = self.ends[filled] if column == width - 1 else self.separators[:, column]
        return starts, ends


def layout(text: np.ndarray, delimiter: str, width: int) -> Layout | None:
    """The :class:`Layout` of ``text`` (UTF-8 bytes of whole rows, each ending in a line feed), or
    None where the csv module might read it otherwise than as rows of ``width`` cells split at the
    separators outside quotes: a quote not at a cell's edge or not doubled inside a quoted cell, a line
    end inside quotes (a cell over several lines), a row that is neither blank nor ``width`` cells."""
    separator = ord(delimiter)
    ends = np.flatnonzero(text == NEWLINE)
    outside = text == separator
    quotes = np.flatnonzero(text == QUOTE)
    if quotes.size:
        quoted = np.cumsum(text == QUOTE, dtype=np.uint8) & 1  # odd quotes so far: inside a quoted cell
        if np.any(quoted[ends]) or not quotes_at_edges(text, quotes, separator):
            return None
        outside &= quoted == 0
    starts = np.empty_like(ends)
    starts[:1], starts[1:] = 0, ends[:-1] + 1
    separators = np.flatnonzero(outside)
    blank = _blank_rows(text, starts, ends, separator)
    if blank.any():  # their separators bound no cells
        kept = np.ones(separators.size, dtype=bool)
        for lower, upper in zip(
            np.searchsorted(separators, starts[blank]).tolist(),
            np.searchsorted(separators, ends[blank]).tolist(),
            strict=True,
        ):
            kept[lower:upper] = False
        separators = separators[kept]
    filled = ~blank
    count = int(np.count_nonzero(filled))
    if separators.size != count * (width - 1):
        return None
    grid = separators.reshape(count, width - 1)
    # as many separators as width - 1 per row, in order: each row has its own if its first and last are in it
    if width > 1 and (np.any(grid[:, 0] < starts[filled]) or np.any(grid[:, -1] >= ends[filled])):
        return None
    return Layout(starts, ends, blank, grid)


def _blank_rows(text: np.ndarray, starts: np.ndarray, ends: np.ndarray, separator: int) -> np.ndarray:
    """Rows of nothing but separators, spaces and tabs (an empty line, ;;; from a spreadsheet's empty
    row): only a row that begins with one of them can be, so only those are looked at."""
    kinds = (separator, *_BLANK, NEWLINE)
    blank = np.zeros(starts.size, dtype=bool)
    rows = np.flatnonzero(np.isin(text[starts], kinds))
    if rows.size:
        filled = ~np.isin(text, kinds)
        bounds = np.column_stack([starts[rows], ends[rows]]).ravel()
        blank[rows] = np.add.reduceat(filled, bounds)[::2] == 0  # [start, end) of each; an empty row: 0
    return blank


def quotes_at_edges(text: np.ndarray, quotes: np.ndarray, separator: int) -> bool:
    """Whether every quote opens a cell (after a separator or line end), closes one (before them) or
    is one of a doubled pair: the quoting the csv module and the quote count agree on."""
    edge = (separator, NEWLINE, QUOTE)
    before = np.where(quotes > 0, text[np.maximum(quotes - 1, 0)], NEWLINE)
    after = text[quotes + 1]  # text ends in a line feed: a quote is never last
    opening = np.arange(quotes.size) % 2 == 0
    return bool(np.all(np.where(opening, np.isin(before, edge), np.isin(after, edge))))


_HIGH_BITS, _NINE_BELOW_HIGH = 0x8080808080808080, 0x7676767676767676  # a byte over 9 sets its high bit


def _byte_masks(words: int) -> np.ndarray:
    """``masks[k, i]``: the first ``k`` bytes of a text of ``words`` little-endian words (k = 0..8 * words),
    row ``i`` as words; ``masks[k] ^ masks[k + 1]`` is byte ``k`` alone."""
    size = 8 * words
    masks = np.zeros((size + 1, size), dtype=np.uint8)
    for k in range(size + 1):
        masks[k, :k] = 0xFF
    return masks.view("<u8")


_MASKS = {words: _byte_masks(words) for words in (1, 2)}


def eight_digits(words: np.ndarray) -> np.ndarray:
    """The number each little-endian word's eight bytes (digit values 0-9, the first the most
    significant) write: three multiply-and-shift steps, pairs, then fours, then eights (SWAR)."""
    words = ((words & np.uint64(0x0F0F0F0F0F0F0F0F)) * np.uint64(2561)) >> np.uint64(8)
    words = ((words & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
    return ((words & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)


def _last_byte(words: np.ndarray, byte: int) -> tuple[np.ndarray, np.ndarray]:
    """(index, found) of the last byte equal to ``byte`` in each row of little-endian words: the high
    bit of each byte that differs from it set without carries between bytes (SWAR), the highest
    clear one found from the float exponent of the word."""
    low_bits = np.uint64(0x7F7F7F7F7F7F7F7F)
    differ = words ^ np.uint64(byte * 0x0101010101010101)
    equal = ~((((differ & low_bits) + low_bits) | differ) | low_bits)  # 0x80 where equal
    last = np.frexp(equal.astype(np.float64))[1] // 8 - 1  # byte of the highest bit; -1: none
    index = last[:, -1]
    for place in range(words.shape[1] - 2, -1, -1):
        index = np.where(index < 0, last[:, place], index + 8)
    return index, index >= 0


def plain_decimals(text: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, unread) of the cells ``text[starts:ends]``: a cell of at most 16 characters written
    ``[+-]digits[.digits]`` with at most 15 digits is read exactly as ``float`` reads it; ``unread``
    marks every other cell (its value 0 here), for the per-cell reader.

    Each cell is read right-aligned in one or two 8-byte words ending at its end: the bytes before it
    and its sign are cleared to 0 digits, the digits before its point moved into the point's place, the
    rest must be digits, and the words are read as numbers (:func:`_eight_digits`), the integer of all
    the cell's digits, divided by the power of ten of those after the point. A long column is read
    :data:`CHUNK` cells at a time, whose temporaries stay in the processor's cache."""
    if starts.size > CHUNK:
        parts = [
            plain_decimals(text, starts[first : first + CHUNK], ends[first : first + CHUNK])
            for first in range(0, starts.size, CHUNK)
        ]
        values, unread = (np.concatenate(pieces) for pieces in zip(*parts, strict=True))
        return values, unread
    lengths = ends - starts
    unread = (lengths < 1) | (lengths > _WIDEST)
    widest = int(lengths[~unread].max(initial=0))
    if widest == 0:
        return np.zeros(lengths.size), np.ones(lengths.size, dtype=bool)
    words = 1 if widest <= 8 else 2
    width = 8 * words
    window = ends - width
    if text.size < width:  # a text shorter than a window: every window begins before it
        chars = np.empty((lengths.size, width), dtype=np.uint8)
    else:
        chars = np.lib.stride_tricks.sliding_window_view(text, width)[np.maximum(window, 0)]
    near = np.flatnonzero(window < 0)  # a window that would begin before the text
    chars[near] = text[np.maximum(window[near, None] + np.arange(width), 0)]
    digits = chars - ZERO  # uint8: anything but a digit wraps to 10 or more
    rows = np.arange(lengths.size)
    first = np.clip(width - lengths, 0, width - 1)  # the byte of each cell's first character
    sign = chars[rows, first]
    signed = (sign == MINUS) | (sign == PLUS)
    masks = _MASKS[words]
    values = digits.view("<u8") & ~masks[first + signed]  # the bytes before the cell, and its sign
    point, has_point = _last_byte(values, (POINT - ZERO) % 256)  # another point is no digit, below
    # the digits before the point move up a byte into its place, as if it had never been there
    before, after = values & masks[point], values & ~masks[point + 1]
    moved = before << np.uint64(8)
    if words == 2:
        moved[:, 1] |= before[:, 0] >> np.uint64(56)
    values = np.where(has_point[:, None], moved | after, values)
    high = np.uint64(_HIGH_BITS)
    unread |= np.any((values & high) | ((values + np.uint64(_NINE_BELOW_HIGH)) & high), axis=1)
    whole = eight_digits(values).astype(np.float64)  # exact: below 2**53
    whole = whole[:, 0] if words == 1 else whole[:, 0] * 1e8 + whole[:, 1]
    counted = lengths - has_point - signed
    unread |= (counted < 1) | (counted > _DIGITS)
    values = whole / _POW10F[np.where(has_point, width - 1 - point, 0)]
    values[signed & (sign == MINUS)] *= -1
    values[unread] = 0.0
    return values, unread


_WORDS = 3  # a fixed-point text in three little-endian 64-bit words: 24 bytes, the longest 18


class _Layouts(NamedTuple):
    """For each layout key (decimal exponent + 4, plus 16 for a minus sign; 32: zero; 33: by Python):
    the bytes of the 12 digits that stay left of the point (two words), the bits those and the others
    move towards the end, the fixed characters (minus, point, zeros; three words) and the text's length
    by the number of digits kept (0 to 12): 123.456 is 123 moved 0, "." at 3, 456 moved 1; -0.00123 is
    "-0.00" and the digits moved 5."""

    left: np.ndarray
    low_shift: np.ndarray
    high_shift: np.ndarray
    fixed: np.ndarray
    length: np.ndarray


def _fixed_point_layouts() -> _Layouts:
    left = np.zeros((34, 16), dtype=np.uint8)
    low_shift, high_shift = np.zeros(34, dtype="<u8"), np.zeros(34, dtype="<u8")
    fixed = np.zeros((34, _WORDS * 8), dtype=np.uint8)
    length = np.zeros((34, 13), dtype=np.int64)
    for key in range(32):
        sign, power = key // 16, key % 16 - 4
        text = "-" * sign + ("" if power >= 0 else "0." + "0" * (-power - 1))
        left[key, : max(power + 1, 0)] = 0xFF
        low_shift[key] = 8 * sign
        high_shift[key] = 8 * (sign + 1 if power >= 0 else len(text))
        fixed[key, : len(text)] = list(text.encode())
        if power >= 0:
            fixed[key, sign + power + 1] = POINT
        for kept in range(13):
            after = kept - power - 1  # digits after the point (of 0.00123: the zeros too)
            length[key, kept] = sign + max(power + 1, 1) + (after + 1 if after > 0 else 0)
    fixed[32, 0], length[32] = ZERO, 1
    return _Layouts(left.view("<u8"), low_shift, high_shift, fixed.view("<u8"), length)


_LAYOUT = _fixed_point_layouts()
_FOUR_WORDS = _FOUR_DIGITS.view("<u4").ravel()
_TRAILING_ZEROS = np.logical_and.accumulate(_FOUR_DIGITS[:, ::-1] == ZERO, axis=1).sum(axis=1)  # 0: 4


def _shifted(
    low: np.ndarray, high: np.ndarray, bits: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three words (the third 0 before) moved ``bits`` (0 to 56) towards the end of the text."""
    back = 63 - bits  # ``word >> 1 >> back`` is ``word >> (64 - bits)``, 0 where bits is 0
    return low << bits, (high << bits) | (low >> 1 >> back), high >> 1 >> back


def g12(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(characters, lengths): each value as ``"%.12g" % (value + 0.0)`` writes it (``-0`` as 0), one
    row of a byte matrix (as wide as the longest) per value. A fixed-point value is its 12 digits with
    the point, zeros and sign of its layout (:func:`_fixed_point_layouts`) put in by word shifts, its
    trailing zeros dropped; a value in exponent form, not finite, or whose scaled digits are nearly
    half-way, is written by Python."""
    magnitude = np.abs(values)
    with np.errstate(all="ignore"):
        exponent = np.floor(np.log10(magnitude))
        fast = (exponent >= -4) & (exponent <= 11)
        exponent = np.where(fast, exponent, 0).astype(np.int64)
        scaled = magnitude * _POW10F[11 - exponent]
        rounded = np.rint(scaled)
        # the product is within 2**-9 of the exact one (< 2**44): clear of .5, its rounding is %.12g's
        fast &= (np.abs(scaled - rounded) < 0.49) & (rounded >= 1e11) & (rounded < 1e12)
    mantissa = np.where(fast, rounded, 0.0)
    high = np.floor(mantissa / 1e8)  # exact: the fraction of a quotient is >= 1e-8, far above its ulp
    middle = np.floor(mantissa / 1e4)
    groups = [group.astype(np.intp) for group in (high, middle - high * 1e4, mantissa - middle * 1e4)]
    first = _FOUR_WORDS[groups[0]].astype("<u8") | (_FOUR_WORDS[groups[1]].astype("<u8") << np.uint64(32))
    second = _FOUR_WORDS[groups[2]].astype("<u8")
    zeros = _TRAILING_ZEROS[groups[2]] + (groups[2] == 0) * (
        _TRAILING_ZEROS[groups[1]] + (groups[1] == 0) * _TRAILING_ZEROS[groups[0]]
    )
    negative = values < 0
    zero = values == 0
    key = np.where(fast, exponent + 4 + 16 * negative, np.where(zero, 32, 33))
    first_left, second_left = _LAYOUT.left[:, 0][key], _LAYOUT.left[:, 1][key]
    right = _shifted(first & ~first_left, second & ~second_left, _LAYOUT.high_shift[key])
    left: tuple[np.ndarray, np.ndarray, np.ndarray | int] = (first & first_left, second & second_left, 0)
    if negative.any():  # the digits before the point move a byte for the sign
        left = _shifted(*left[:2], _LAYOUT.low_shift[key])
    words = np.empty((values.size, _WORDS), dtype="<u8")
    for place in range(_WORDS):
        words[:, place] = left[place] | right[place] | _LAYOUT.fixed[:, place][key]
    out = words.view(np.uint8)
    lengths = _LAYOUT.length[key, 12 - zeros]
    slow = np.flatnonzero(~fast & ~zero)
    if slow.size:
        written = np.array([f"{value:.12g}" for value in values[slow].tolist()], dtype=f"S{8 * _WORDS}")
        out[slow] = written.view(np.uint8).reshape(slow.size, 8 * _WORDS)
        lengths[slow] = np.char.str_len(written)
    return out[:, : lengths.max(initial=0)], lengths


def insert(data: np.ndarray, at: np.ndarray, added: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``data`` with ``lengths[i]`` bytes of ``added`` (the pieces end to end) put before ``data[at[i]]``,
    for ``at`` in increasing order (a row's results before its line feed)."""
    runs = np.empty(2 * at.size + 1, dtype=np.int64)  # of data, of added, of data, ...
    runs[0:-1:2] = np.diff(at, prepend=0)
    runs[1::2] = lengths
    runs[-1] = data.size - (at[-1] if at.size else 0)
    inside = np.repeat(np.arange(runs.size) % 2 == 1, runs)
    out = np.empty(data.size + added.size, dtype=np.uint8)
    out[inside] = added
    out[~inside] = data
    return out


def taken(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bytes, line-feed offsets) of the rows ``data[starts:ends + 1]`` end to end, in the order given."""
    sizes = ends - starts + 1
    offsets = np.cumsum(sizes) - sizes
    index = np.repeat(starts - offsets, sizes) + np.arange(sizes.sum())
    return data[index], offsets + sizes - 1
