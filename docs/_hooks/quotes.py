"""Numbers quoted in prose, taken from the tool: checked by a test, rewritten at build time.

A page quotes what the tool says with a comment before the text that holds the number::

    <!-- quote: qmodel scenario gdps-env3 --max-distance --format json
    the goal seek: {max_distance[km]} km, broken by {breaking_component}
    -->

The first line names the source, each line after it is a template in Python's format syntax
(``{results[0][response_time][ms]:.0f}``; a brace of the text doubled, ``{{``; a record's key
``name[unit]`` is reached as ``{name[unit]}``: :func:`_unit_fields`). The source is a
``qmodel`` command whose standard output is JSON (run as the page's examples run: in a fresh
directory holding the page's files, with ``COLUMNS=100``; a list is named ``rows``), a ``.toml`` file
of the repository (a shipped scenario's ``[locks]``), or ``python:MODULE`` (a module's names, such as
the limits of ``qmodel.limits``).
Each template must match the page's text after the comment (the first match; a field is a number or
a name, line breaks count as spaces). What it matches there is what the page says; the template filled from
the source is what the tool says. ``tests/test_docs_truth.py`` fails when they differ, the site
build (this hook) writes the tool's value into the page it renders, and
``python tests/test_docs_examples.py --update`` rewrites the page's source.
"""

from __future__ import annotations

import importlib
import json
import re
import string
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pagework import environment, page_files, parse

from qmodel.frames import split_key
from qmodel.tomlread import read_toml

ROOT = Path(__file__).resolve().parents[2]
QUOTE = re.compile(r"<!-- quote: (?P<source>[^\n]*?)\s*\n(?P<templates>.*?)-->", re.DOTALL)
_FORMATTER = string.Formatter()


class QuoteError(Exception):
    """A quote that cannot be checked: its source fails, or its template matches nothing on the page."""


@dataclass
class Quote:
    source: str
    template: str
    start: int  # where the matched text lies in the page
    end: int
    found: str  # the page's text there
    said: str  # the template filled from the source: what the tool says


def quotes(text: str, page: str = "page") -> list[Quote]:
    """Every quote of a page's text, each with what the page says and what the tool says."""
    found: list[Quote] = []
    files = None
    for marker in QUOTE.finditer(text):
        source = marker["source"].strip()
        if files is None:
            files = tuple(sorted(page_files(parse(text.split("\n"))).items()))
        data = _data(source, files)
        for template in filter(None, (line.strip() for line in marker["templates"].split("\n"))):
            matched = _pattern(template).search(text, marker.end())
            if matched is None:
                raise QuoteError(f"{page}: quote {template!r} of `{source}` matches nothing after it")
            found.append(
                Quote(
                    source,
                    template,
                    matched.start(),
                    matched.end(),
                    matched[0],
                    _filled(matched, template, data, f"{page}: `{source}`"),
                )
            )
    return found


def substituted(text: str, page: str = "page") -> str:
    """``text`` with every quote saying what the tool says."""
    for quote in sorted(quotes(text, page), key=lambda q: q.start, reverse=True):
        text = text[: quote.start] + quote.said + text[quote.end :]
    return text


# a field's text on the page: a number (-1,234.5, 1e-3, 95%, 171352km/s) or a name (cf_async, G1P2),
# never the punctuation after it
FIELD = (
    r"([-+−]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?:%|[^\W\d_]+(?:/[^\W\d_]+)?)?"
    r"|[^\W\d](?:[\w./-]*\w)?)"
)


def _pattern(template: str) -> re.Pattern:
    """A template as a pattern: its literal text (any run of white space matching any other), each field
    a number or a name (:data:`FIELD`)."""
    parts = []
    for literal, field, _, _ in _FORMATTER.parse(template):
        parts += [r"\s+".join(re.escape(word) for word in re.split(r"\s+", literal))]
        if field is not None:
            parts.append(FIELD)
    return re.compile("".join(parts))


def _filled(matched: re.Match, template: str, data: dict, where: str) -> str:
    """The matched text with each field's word replaced by the source's value (its spacing kept)."""
    values = []
    for _, field, spec, conversion in _FORMATTER.parse(template):
        if field is None:
            continue
        try:
            value, _ = _FORMATTER.get_field(field, (), data)
        except (KeyError, IndexError, AttributeError, TypeError) as error:
            raise QuoteError(f"{where} has no {field} ({type(error).__name__}: {error})") from None
        values.append(_FORMATTER.format_field(_FORMATTER.convert_field(value, conversion), spec or ""))
    text, at = matched[0], matched.start()
    for group in range(len(values), 0, -1):
        start, end = matched.start(group) - at, matched.end(group) - at
        text = text[:start] + values[group - 1] + text[end:]
    return text


@cache
def _data(source: str, files: tuple[tuple[str, str], ...]) -> dict:
    """What a source says: a command's JSON, a TOML file of the repository, or a module's names."""
    if source.startswith("python:"):
        return vars(importlib.import_module(source.removeprefix("python:")))
    if source.endswith(".toml") and " " not in source:
        return read_toml(ROOT / source)
    if not source.startswith("qmodel "):
        raise QuoteError(f"quote source `{source}`: a qmodel command, a .toml file or python:MODULE")
    with tempfile.TemporaryDirectory(prefix="qmodel-quote-") as folder:
        work = Path(folder) / "work"
        work.mkdir()
        for name, content in files:
            (work / name).write_text(content, encoding="utf-8")
        done = subprocess.run(
            ["bash", "-c", source],
            cwd=work,
            env=environment(Path(folder) / "cache"),
            text=True,
            capture_output=True,
            timeout=600,
        )
    try:
        said = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise QuoteError(
            f"quote source `{source}` printed no JSON (exit {done.returncode}): {done.stderr.strip()[:300]}"
        ) from None
    return _unit_fields(said if isinstance(said, dict) else {"rows": said})


def _unit_fields(value: Any) -> Any:
    """A JSON value whose record keys ``name[unit]`` (:func:`qmodel.frames.key`) a template reaches as
    format syntax reads them, ``{name[unit]}``: each is given also as ``name`` → {unit: value}."""
    if isinstance(value, list):
        return [_unit_fields(item) for item in value]
    if not isinstance(value, dict):
        return value
    fields = {key: _unit_fields(item) for key, item in value.items()}
    for key in value:
        name, unit = split_key(key)
        if unit is not None and isinstance(fields.setdefault(name, {}), dict):
            fields[name][unit] = fields[key]
    return fields


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: each quote rewritten with what the tool says today."""
    from mkdocs.exceptions import PluginError  # the hook runs inside mkdocs only

    try:
        return substituted(markdown, page.file.src_uri)
    except QuoteError as error:
        raise PluginError(str(error)) from None


def update(path: Path) -> int:
    """Rewrite the quotes of a page's source that differ from the tool; the number rewritten."""
    text = path.read_text(encoding="utf-8")
    stale = [q for q in quotes(text, str(path)) if q.found != q.said]
    if stale:
        path.write_text(substituted(text, str(path)), encoding="utf-8")
    return len(stale)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {update(Path(name))} quotes rewritten")
