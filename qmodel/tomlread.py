"""Read TOML with the standard library (tomllib) or, on Python 3.10, tomli."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from qmodel.errors import CatalogueError, InputError


def read_toml(path: Path, text: str | None = None) -> dict[str, Any]:
    """Parse a TOML file; a syntax error becomes a CatalogueError naming the file.

    A UTF-8 byte-order mark (Windows editors write one) is skipped. A file that
    is missing, a directory or not UTF-8 is an InputError naming it.
    """
    if text is None:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError("file", str(path), "a UTF-8 text file",
                             reason=f"not UTF-8 ({error.reason} at byte {error.start})") from None
        except OSError as error:
            raise InputError("file", str(path), "a readable TOML file",
                             reason=error.strerror or "cannot read") from None
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{path.name}: TOML syntax error: {error}") from None
