"""Read TOML with the standard library (tomllib) or, on Python 3.10, tomli; check a data file's format
version (:func:`format_checked`)."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from qmodel.errors import CatalogueError, InputError
from qmodel.limits import read_bounded_text
from qmodel.units import shortened

FILE_LIMIT = 10_000_000  # bytes: a model, scenario, casebook or catalogue file is kilobytes
NESTING_LIMIT = 100  # levels of arrays and inline tables (a model file needs three); tomllib recurses
_SKIPPED = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# The format of qmodel's data files (formula catalogues, casebooks, scenario files), in their top-level
# key FORMAT_KEY: the versions this qmodel reads. A file without the key is read as version 1, the format
# every file had before the key was written.
FORMAT_KEY = "format_version"
FORMAT_VERSIONS = (1,)


def read_toml(path: Path, text: str | None = None, what: str = "file") -> dict[str, Any]:
    """Parse a TOML file; a syntax error becomes a CatalogueError naming the file.

    The file is read with a bound (:func:`qmodel.limits.read_bounded_text`, FILE_LIMIT); a UTF-8
    byte-order mark (Windows editors write one) is skipped. A file that is missing, a directory, not
    UTF-8 or too large is an InputError naming it as ``what``; nested deeper than NESTING_LIMIT, a
    CatalogueError as a syntax error is.
    """
    if text is None:
        text = read_bounded_text(path, what, FILE_LIMIT)
    if nesting(text) > NESTING_LIMIT:
        raise CatalogueError(_too_deep(path))
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{path.name}: TOML syntax error: {error}") from None
    except RecursionError:  # a backstop: nesting() counts every bracket outside strings and comments
        raise CatalogueError(_too_deep(path)) from None


def format_checked(data: dict[str, Any], where: str) -> dict[str, Any]:
    """A data file's tables without its ``format_version``, which must be one this qmodel reads
    (:data:`FORMAT_VERSIONS`; none written: version 1); InputError in one line naming the file and the
    version otherwise (``where``: the file's name, as the error shows it)."""
    version = data.get(FORMAT_KEY, 1)
    if isinstance(version, bool) or version not in FORMAT_VERSIONS:
        known = " or ".join(map(str, FORMAT_VERSIONS))
        raise InputError(
            f"{where}: {FORMAT_KEY}",
            shortened(repr(version)),
            f"{known} (the formats this qmodel reads)",
            reason="a format this qmodel does not know: written for a newer qmodel?",
        )
    return {key: value for key, value in data.items() if key != FORMAT_KEY}


def _too_deep(path: Path) -> str:
    return f"{path}: TOML nested too deeply: arrays or inline tables deeper than {NESTING_LIMIT} levels"


def nesting(text: str) -> int:
    """The deepest nesting of [ and { in TOML text, strings and comments skipped (a table header counts
    its brackets: [[a]] is 2)."""
    steps = map(_STEP.__getitem__, _BRACKET.findall(_SKIPPED.sub("", text)))
    return max(itertools.accumulate(steps), default=0)
