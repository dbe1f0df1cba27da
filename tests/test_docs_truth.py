"""The docs tell the truth: a number quoted in prose is what the tool says, and every picture is drawn by
the tool when the site is built, never a committed image.

The machinery lives in ``docs/_hooks`` (``quotes.py``, ``figures.py``, ``pagework.py``) and is explained in
docs/contributing/docs.md; these tests run it as the site build does, so ``pytest`` catches a stale
number or a picture that cannot be drawn without building the site.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_hooks"))  # the site's hooks: one home for each rule
import figures  # noqa: E402
import quotes  # noqa: E402
from pagework import parse  # noqa: E402


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_hooks" not in p.parts)]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


QUOTING = [p for p in pages() if quotes.QUOTE.search(p.read_text(encoding="utf-8"))]
DRAWING = [p for p in pages() if figures.FIGURE.search(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", QUOTING, ids=_name)
def test_every_number_a_page_quotes_is_what_the_tool_says(page: Path) -> None:
    stale = [q for q in quotes.quotes(page.read_text(encoding="utf-8"), _name(page)) if q.found != q.said]
    assert not stale, (
        "\n".join(
            f"{_name(page)}: `{q.source}`: the page says {q.found!r}, the tool {q.said!r}" for q in stale
        )
        + "\n(rewrite: python tests/test_docs_examples.py --update)"
    )


@pytest.mark.parametrize("page", DRAWING, ids=_name)
def test_every_picture_a_page_shows_is_drawn_by_the_tool(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    drawn = figures.draw([(figure, text) for figure in figures.figures(_name(page), text)])
    for picture in drawn.values():
        assert picture.startswith(b"\x89PNG") or picture.lstrip().startswith(b"<?xml")


IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)|<img\b[^>]*\bsrc=[\"']?([^\"' >]+)")


@pytest.mark.parametrize("page", pages(), ids=_name)
def test_no_page_shows_a_committed_image(page: Path) -> None:
    """A picture in the docs is a figure the tool draws at build time; an image link is a committed file
    that shows what the code drew once."""
    shown = [m[1] or m[2] for m in IMAGE.finditer(page.read_text(encoding="utf-8"))]
    assert not shown, f"{_name(page)} shows {shown}: draw it with <!-- figure: COMMAND --plot NAME.png -->"


def test_no_image_is_committed_for_the_docs() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "*.png", "*.svg", "*.jpg", "*.gif"], cwd=ROOT, capture_output=True, text=True
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    assert not listed.stdout.split(), f"committed images: {listed.stdout.split()}"


# --- numbers in the planner's pages: each is quoted from the tool, or shown in the page's examples ---

DOCS = ROOT / "docs"
PLANNER_PAGES = [
    ROOT / "README.md",
    DOCS / "index.md",
    *sorted((DOCS / "tutorials").glob("*.md")),
    *sorted((DOCS / "howto").glob("*.md")),
]
# a number with a decimal point, or with a unit a planner reads an answer in
NUMBER = re.compile(
    r"(?<![\w.#/-])(\d+(?:,\d{3})*(?:\.\d+)?)(\s?(?:km|ms|µs|us|s|%|GB|MB/s|/s|K|M|rows|"
    r"distances|points|minutes)(?!\w)|(?=\W|$))"
)
# numbers in prose that are not the tool's answers: each with the reason it is safe from drift
NOT_FROM_THE_TOOL = {
    "README.md": {"3.10": "the Python version setup.cfg requires (python_requires)"},
    "docs/index.md": {
        "3.10": "the Python version setup.cfg requires (python_requires)",
        "10 µs": "propagation in fibre, the studies' rule of thumb (5 µs/km each way)",
    },
    "docs/howto/bad-input.md": {
        "6.0": "an input typed in the example",
        "5.999999999999999": "the same, as a float prints it: the page's point",
    },
    "docs/howto/calc.md": {"190K": "an input typed in the example"},
    "docs/howto/network-features.md": {
        "8.1": "the number of an example in Bolch et al., cited",
        "80%": "the service level asked for, 100% less the 20% typed",
    },
    "docs/howto/studies.md": {
        "0.4 ms": "the study's printed Metro Mirror overhead at 0 km (its casebook)",
        "24.7 MB/s": "the casebook's note on the z/TPF miss, its arithmetic",
    },
    "docs/tutorials/stretched-sysplex.md": {
        "10 µs": "the default round trip per km, the study's nominal "
        "figure (scenario-file reference, generated from the schema)"
    },
    "docs/howto/validate.md": {
        "92%": "a tolerance case's illustration",
        "93%": "the same",
        "90.3%": "the same",
        "89.7%": "the same",
    },
    "docs/howto/workbooks.md": {
        "90%": "the example scenario's goal, typed in its file",
        "125 ms": "the same",
    },
}


def prose_numbers(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each number with a decimal point or a unit in a page's prose: outside code,
    generated blocks and comments."""
    hidden = re.compile(
        r"(?s)<!-- ([\w-]+):begin -->.*?<!-- \1:end -->|<!--.*?-->"
        r"|(?m:^\s*```.*?^\s*```)|`[^`]*`"
    )
    blanked = hidden.sub(lambda m: " " * len(m[0]), text)
    return [(m.start(), m[0].strip()) for m in NUMBER.finditer(blanked) if "." in m[1] or m[2].strip()]


def shown_numbers(text: str) -> set[str]:
    """Every number the page's examples show: commands, their output, its files and its inline code."""
    code = [line for block in parse(text.split("\n")) for line in block.body] + re.findall(r"`[^`]*`", text)
    return set(re.findall(r"\d+(?:\.\d+)?", " ".join(code).replace(",", "")))


@pytest.mark.parametrize("page", PLANNER_PAGES, ids=_name)
def test_a_number_in_a_planners_page_is_quoted_from_the_tool_or_shown_by_its_examples(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    quoted = [(q.start, q.end) for q in quotes.quotes(text, _name(page))] if page in QUOTING else []
    shown, allowed = shown_numbers(text), NOT_FROM_THE_TOOL.get(_name(page), {})
    loose = [
        number
        for at, number in prose_numbers(text)
        if not any(start <= at < end for start, end in quoted)
        and re.match(r"[\d,.]+", number)[0].replace(",", "") not in shown
        and number not in allowed
    ]
    assert not loose, (
        f"{_name(page)}: {loose} in prose, neither quoted from the tool "
        "(<!-- quote: ... -->) nor shown by the page's examples"
    )


# --- the machinery itself ---


def test_a_quote_says_what_its_source_says_and_finds_the_page_stale_when_it_differs() -> None:
    page = (
        "<!-- quote: python:qmodel.limits\nrefused above {TIME_LIMIT:g} s of CPU\n-->\n"
        "A sweep is refused above 7 s of CPU.\n"
    )
    [quote] = quotes.quotes(page)
    assert quote.found == "refused above 7 s of CPU" and quote.said == "refused above 10 s of CPU"
    assert quotes.substituted(page).endswith("A sweep is refused above 10 s of CPU.\n")


def test_a_quote_keeps_the_page_s_line_breaks_and_the_punctuation_after_a_number() -> None:
    page = "<!-- quote: python:qmodel.limits\nabove {TIME_LIMIT:.1f} s\n-->\nrefused above\n10.0 s. Then\n"
    [quote] = quotes.quotes(page)
    assert quote.found == quote.said == "above\n10.0 s"


def test_a_quote_that_matches_nothing_is_an_error() -> None:
    with pytest.raises(quotes.QuoteError, match="matches nothing"):
        quotes.quotes("<!-- quote: python:qmodel.limits\nat most {TIME_LIMIT} s\n-->\nno such text\n")
