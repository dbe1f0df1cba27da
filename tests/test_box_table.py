"""A table is drawn by qmodel.output itself, without loading rich's console (a third of a quick
answer's start-up): character for character what rich prints, piped and on a terminal (its styles)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel import output

# words of one-column characters joined by single spaces (the tables qmodel prints), or also text rich
# measures or wraps its own way: two columns wide (中), outside the one-column ranges (…), a soft hyphen,
# a newline, spaces at the ends or doubled
WORDS = st.lists(
    st.text(alphabet="aZ1.-_é[]%/\N{NO-BREAK SPACE}", min_size=1, max_size=9), min_size=1, max_size=4
).map(" ".join)
ODD = st.one_of(WORDS, st.text(alphabet=" aZ1é中…\N{SOFT HYPHEN}\n", max_size=14))


@st.composite
def tables(draw) -> dict:
    """The columns, rows, title, caption and width of a table: one in four with odd text."""
    text = draw(st.sampled_from([WORDS, WORDS, WORDS, ODD]))
    cell = st.one_of(
        text,
        st.none(),
        st.integers(-(10**7), 10**7),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
    )
    columns = draw(st.lists(text, min_size=1, max_size=5))
    rows = draw(st.lists(st.lists(cell, min_size=len(columns), max_size=len(columns)), max_size=5))
    maybe = st.one_of(st.just(""), text)
    return {
        "columns": columns,
        "rows": rows,
        "title": draw(maybe),
        "caption": draw(maybe),
        "width": draw(st.integers(8, 100)),
    }


def printed(columns, rows, *, drawn_here: bool, terminal: bool = False, **options) -> str:
    """What print_table writes piped, or on a terminal: drawn here where it can be (``drawn_here``), or
    by rich throughout (FORCE_COLOR makes rich write for a terminal)."""
    text = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(text):
        styles = output.TERMINAL_STYLES if terminal else {}
        patch.setattr(output, "_stdout_styles", lambda: styles if drawn_here else None)
        patch.delenv("TTY_COMPATIBLE", raising=False)
        if terminal:
            patch.setenv("FORCE_COLOR", "1")
            patch.setenv("TERM", "xterm-256color")
        else:
            patch.delenv("FORCE_COLOR", raising=False)
        output.print_table(columns, rows, **options)
    return text.getvalue()


@settings(max_examples=300, deadline=None)
@given(tables(), st.booleans())
def test_a_table_drawn_here_is_what_rich_prints(table: dict, terminal: bool) -> None:
    assert printed(**table, drawn_here=True, terminal=terminal) == printed(
        **table, drawn_here=False, terminal=terminal
    )


def test_a_quick_answer_s_table_is_drawn_here_as_rich_draws_it() -> None:
    columns = ["kind", "name", "value", "unit"]
    rows = [["input", "arrival_rate", 800, "1/s"], ["output", "utilization", 0.8, "ratio"]]
    title = "M/M/1 queue: Poisson arrivals, one exponential server"
    layout = output._layout(
        columns,
        [[output.format_number(v) for v in row] for row in rows],
        [[False, False, True, False]] * 2,
        range(4),
        title,
        "",
        80,
    )
    assert (
        output._box_text(layout, 80, {})
        == printed(columns, rows, drawn_here=False, title=title, width=80)
        == (
            "   M/M/1 queue: Poisson arrivals, one    \n"
            "           exponential server            \n"
            "┏━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━━━┓\n"
            "┃ kind   ┃ name         ┃ value ┃ unit  ┃\n"
            "┡━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━━━┩\n"
            "│ input  │ arrival_rate │   800 │ 1/s   │\n"
            "│ output │ utilization  │   0.8 │ ratio │\n"
            "└────────┴──────────────┴───────┴───────┘\n"
        )
    )


def test_a_terminal_takes_rich_s_styles_and_rich_draws_where_it_may_draw_otherwise(monkeypatch) -> None:
    class Stdout(io.StringIO):
        def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
            super().__init__()
            self.tty, self._encoding = tty, encoding

        def isatty(self) -> bool:
            return self.tty

        @property
        def encoding(self) -> str:
            return self._encoding

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(sys, "stdout", Stdout(tty=False))
    assert output._stdout_styles() == {}
    monkeypatch.setattr(sys, "stdout", Stdout(tty=True))
    assert output._stdout_styles() == output.TERMINAL_STYLES
    monkeypatch.setenv("TERM", "dumb")
    assert output._stdout_styles() is None
    monkeypatch.setattr(sys, "stdout", Stdout(tty=False, encoding="ascii"))
    assert output._stdout_styles() is None
    monkeypatch.setattr(sys, "stdout", Stdout(tty=False))
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert output._stdout_styles() is None


# standard output on a pseudo-terminal, for a probe that runs the command line as at a terminal
ON_A_TERMINAL = (
    "import os\nreader, terminal = os.openpty()\nos.dup2(terminal, 1)\n"
    "sys.stdout = open(1, 'w', encoding='utf-8', closefd=False)\n"
)


QUICK_ANSWERS = {
    "calc": (["calc", "mm1", "arrival_rate=800", "service_time=1ms"], "number_in_system"),
    # the 4-station example of docs/howto/mva.md: a small network solved without numba
    "mva": (
        [
            "mva",
            "--demand",
            "0.5,0.3,0.4,1",
            "--servers",
            "2,1,1,delay",
            "--names",
            "cpu,disk1,disk2,terminals",
            "--population",
            "1..3",
        ],
        "terminals",
    ),
}


@pytest.mark.parametrize("command", sorted(QUICK_ANSWERS))
@pytest.mark.parametrize("where", ["piped", "terminal"])
def test_a_quick_answer_loads_neither_rich_s_console_nor_its_table(where: str, command: str) -> None:
    arguments, shown = QUICK_ANSWERS[command]
    probe = (
        "import sys\n" + (ON_A_TERMINAL if where == "terminal" else "") + "from qmodel.cli import main\n"
        f"sys.argv = ['qmodel', *{arguments!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(repr([m for m in ('rich.console', 'rich.table', 'numba', 'scipy', 'sympy')"
        " if m in sys.modules]))\n"
    )
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80"}  # a new pseudo-terminal has no size
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert done.stderr == "[]"
    if where == "piped":
        assert shown in done.stdout


def test_a_terminal_of_no_size_is_taken_as_none(monkeypatch) -> None:
    """A pseudo-terminal nobody sized reports 0 columns; at width 0 rich printed nothing, exit 0."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd: os.terminal_size((0, 0)))
    assert output.terminal_width() == 80
