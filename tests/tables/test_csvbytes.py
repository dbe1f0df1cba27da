"""CSV as bytes: each bulk reader and writer agrees with the per-cell Python route it stands in for."""

import csv
import math
import struct

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from qmodel.output import SIGNIFICANT
from qmodel.tables import csvbytes

PLAIN = st.from_regex(r"[+-]?([0-9]{1,7}(\.[0-9]{0,7})?|\.[0-9]{1,14})", fullmatch=True)  # <= 16 chars
ANY_CELL = st.one_of(PLAIN, st.text(alphabet="0123456789.+-e_ ,%kmsK\u0660", max_size=20))


def _cells(cells: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bytes of a one-column CSV with its header, and where its cells lie."""
    header = "value\n"
    text = (header + "".join(cell + "\n" for cell in cells)).encode()
    sizes = np.array([len(cell.encode()) for cell in cells], dtype=np.int64)
    ends = len(header) + np.cumsum(sizes + 1) - 1
    return np.frombuffer(text, dtype=np.uint8), ends - sizes, ends


def _same_float(a: float, b: float) -> bool:
    return struct.pack("<d", a) == struct.pack("<d", b)


@given(st.lists(ANY_CELL, min_size=1, max_size=12))
@example(["-0", "1.", ".5", "+7", "123456789012345", "1234567890123456", "0.1", "", "-", "."])
@example(
    [
        "1.2.3",
        "..5",
        "5..",
        "-1.5",
        "+.5",
        "12345678.5",
        "1234567.89012345",
        "-123456789.01234",
        "12345678901.2345",
        "1-2",
        "1+",
        "9" * 16,
        "0" * 16,
        "1e5",
        " 1",
        "1 ",
    ]
)
def test_a_cell_read_in_bulk_is_the_float_python_reads(cells: list[str]) -> None:
    values, unread = csvbytes.plain_decimals(*_cells(cells))
    for cell, value, skipped in zip(cells, values.tolist(), unread.tolist(), strict=True):
        if not skipped:
            assert _same_float(value, float(cell)), cell


@given(st.lists(PLAIN, min_size=1, max_size=12))
def test_a_plain_decimal_is_always_read_in_bulk(cells: list[str]) -> None:
    _, unread = csvbytes.plain_decimals(*_cells(cells))
    assert not unread.any()


def test_a_column_longer_than_a_chunk_is_read_chunk_by_chunk_in_order() -> None:
    cells = [f"{row}.5" if row % 7 else f"{row}ms" for row in range(csvbytes.CHUNK + 9)]
    values, unread = csvbytes.plain_decimals(*_cells(cells))
    assert unread.tolist() == [row % 7 == 0 for row in range(len(cells))]
    assert values[~unread].tolist() == [row + 0.5 for row in range(len(cells)) if row % 7]


def _written(values: list[float]) -> list[str]:
    chars, lengths = csvbytes.g12(np.array(values, dtype=float))
    return [bytes(row[:size]).decode() for row, size in zip(chars, lengths.tolist(), strict=True)]


HALF_WAY = st.builds(
    lambda whole, power: (whole + 0.5) / 10**power, st.integers(10**11, 10**12 - 1), st.integers(0, 16)
)


@given(
    st.lists(
        st.one_of(st.floats(), HALF_WAY, st.integers(-(10**13), 10**13).map(float), st.floats(1e-5, 1e13)),
        min_size=1,
        max_size=12,
    )
)
@example(
    [
        0.0,
        -0.0,
        1e-4,
        9.99999999999995e-5,
        999999999999.5,
        1e12,
        0.1 + 0.2,
        -5.5,
        math.nan,
        -math.inf,
        2.675,
        1 / 3,
        123456789012.5,
        1e-5,
    ]
)
def test_a_number_written_in_bulk_is_what_percent_12g_writes(values: list[float]) -> None:
    """The digits CSV and JSON write (output.SIGNIFICANT): g12 lays out exactly 12."""
    assert _written(values) == [f"{value + 0.0:.{SIGNIFICANT}g}" for value in values]


CELL_TEXT = st.text(alphabet='ab ,;"\t1.\u00e9', max_size=6)


@given(st.lists(st.lists(CELL_TEXT, min_size=1, max_size=4), min_size=1, max_size=6), st.booleans())
@example([["a", '"b,c"', '""']], False)
@example([['"a"b'], ['"a""b"']], False)
@example([["", ""], [" ", "\t"]], False)
def test_rows_are_laid_out_as_the_csv_module_reads_them(rows: list[list[str]], written: bool) -> None:
    """Written by the csv module or typed raw: where layout answers, every cell is csv.reader's field
    and every blank row is one with nothing but separators, spaces and tabs."""
    lines = []
    for cells in rows:
        if written:
            out = csv.StringIO()
            csv.writer(out, lineterminator="").writerow(cells)
            lines.append(out.getvalue())
        else:
            lines.append(",".join(cells))
    if any("\n" in line for line in lines):
        return
    text = "".join(line + "\n" for line in lines).encode()
    records = list(csv.reader(lines))
    width = max(len(record) for record in records if record) if any(records) else 1
    found = csvbytes.layout(np.frombuffer(text, dtype=np.uint8), ",", width)
    if found is None:
        return
    assert found.ends.size == len(lines)
    for row, (line, record) in enumerate(zip(lines, records, strict=True)):
        assert found.blank[row] == (not line.strip(", \t")), line
        if found.blank[row]:
            continue
        assert len(record) == width
        for column, field in enumerate(record):
            start, end = (bounds[row] for bounds in found.cell_bounds(column))
            cell = text[start:end].decode()
            assert (next(csv.reader([cell])) or [""])[0] == field


@given(
    st.lists(
        st.tuples(st.binary(min_size=0, max_size=4), st.binary(min_size=0, max_size=4)),
        min_size=1,
        max_size=8,
    )
)
def test_pieces_put_before_the_line_feeds_are_the_rows_joined(rows: list[tuple[bytes, bytes]]) -> None:
    rows = [(text.replace(b"\n", b"."), added) for text, added in rows]
    text = b"".join(text + b"\n" for text, _ in rows)
    ends = np.cumsum([len(text) + 1 for text, _ in rows]) - 1
    added = np.frombuffer(b"".join(piece for _, piece in rows), dtype=np.uint8)
    lengths = np.array([len(piece) for _, piece in rows])
    out = csvbytes.insert(np.frombuffer(text, dtype=np.uint8), ends, added, lengths)
    assert out.tobytes() == b"".join(text + piece + b"\n" for text, piece in rows)
