"""Read TOML with the standard library (tomllib) or, on Python 3.10, tomli."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from qmodel.errors import CatalogueError


def read_toml(path: Path, text: str | None = None) -> dict[str, Any]:
    """Parse a TOML file; a syntax error becomes a CatalogueError naming the file."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8") if text is None else text)
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{path.name}: TOML syntax error: {error}") from None
