"""A table printed as plain text (piped or captured) is drawn by qmodel.output itself, without loading
rich's console (a third of a quick answer's start-up): character for character what rich prints."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel import output

# words of one-column characters joined by single spaces (the tables qmodel prints), or also text rich
# measures or wraps its own way: two columns wide (中), outside the one-column ranges (…), a soft hyphen,
# a newline, spaces at the ends or doubled
WORDS = st.lists(st.text(alphabet="aZ1.-_é[]%/\N{NO-BREAK SPACE}", min_size=1, max_size=9),
                 max_size=4).map(" ".join)
ODD = st.one_of(WORDS, st.text(alphabet=" aZ1é中…\N{SOFT HYPHEN}\n", max_size=14))


@st.composite
def tables(draw) -> dict:
    """The columns, rows, title, caption and width of a table: one in four with odd text."""
    text = draw(st.sampled_from([WORDS, WORDS, WORDS, ODD]))
    cell = st.one_of(text, st.none(), st.integers(-10**7, 10**7),
                     st.floats(allow_nan=False, allow_infinity=False), st.booleans())
    columns = draw(st.lists(text, min_size=1, max_size=5))
    rows = draw(st.lists(st.lists(cell, min_size=len(columns), max_size=len(columns)), max_size=5))
    return {"columns": columns, "rows": rows, "title": draw(text), "caption": draw(text),
            "width": draw(st.integers(8, 100))}


def printed(columns, rows, *, plain: bool, **options) -> str:
    """What print_table writes, drawn here where it can be (``plain``) or by rich throughout."""
    text = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(text):
        if not plain:
            patch.setattr(output, "_plain_stdout", lambda: False)
        output.print_table(columns, rows, **options)
    return text.getvalue()


@settings(max_examples=400, deadline=None)
@given(tables())
def test_a_table_drawn_here_is_what_rich_prints(table: dict) -> None:
    assert printed(**table, plain=True) == printed(**table, plain=False)


def test_a_quick_answer_s_table_is_drawn_here_as_rich_draws_it() -> None:
    columns = ["kind", "name", "value", "unit"]
    rows = [["input", "arrival_rate", 800, "1/s"], ["output", "utilization", 0.8, "ratio"]]
    title = "M/M/1 queue: Poisson arrivals, one exponential server"
    layout = output._layout(columns, [[output.format_number(v) for v in row] for row in rows],
                            [[False, False, True, False]] * 2, range(4), title, "", 80)
    assert output._box_text(layout, 80) == printed(columns, rows, plain=False, title=title, width=80) == (
        "   M/M/1 queue: Poisson arrivals, one    \n"
        "           exponential server            \n"
        "┏━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━━━┓\n"
        "┃ kind   ┃ name         ┃ value ┃ unit  ┃\n"
        "┡━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━━━┩\n"
        "│ input  │ arrival_rate │   800 │ 1/s   │\n"
        "│ output │ utilization  │   0.8 │ ratio │\n"
        "└────────┴──────────────┴───────┴───────┘\n")


def test_a_terminal_a_forced_colour_and_an_ascii_encoding_are_left_to_rich(monkeypatch) -> None:
    class Stdout(io.StringIO):
        def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
            super().__init__()
            self.tty, self._encoding = tty, encoding

        def isatty(self) -> bool:
            return self.tty

        @property
        def encoding(self) -> str:
            return self._encoding

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setattr(sys, "stdout", Stdout(tty=False))
    assert output._plain_stdout()
    monkeypatch.setattr(sys, "stdout", Stdout(tty=True))
    assert not output._plain_stdout()
    monkeypatch.setattr(sys, "stdout", Stdout(tty=False, encoding="ascii"))
    assert not output._plain_stdout()
    monkeypatch.setattr(sys, "stdout", Stdout(tty=False))
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not output._plain_stdout()


def test_a_piped_quick_answer_loads_neither_rich_s_console_nor_its_table() -> None:
    probe = ("import sys\nfrom qmodel.cli import main\n"
             "sys.argv = ['qmodel', 'calc', 'mm1', 'arrival_rate=800', 'service_time=1ms']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m in ('rich.console', 'rich.table')))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "number_in_system" in done.stdout
    assert done.stdout.splitlines()[-1] == "[]"
