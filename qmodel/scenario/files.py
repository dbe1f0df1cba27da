"""Scenario files by name: the shipped ones (the GDPS study's environments) or a path."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

from qmodel.errors import InputError


def shipped_folder() -> Path:
    """The folder of the scenario files that ship with qmodel (casebooks/scenarios), found beside the
    package qmodel.casebooks (installed or editable) rather than through importlib.resources, whose
    import costs a start-up of ``qmodel scenario`` 4 ms."""
    casebooks = importlib.import_module("qmodel.casebooks")  # casebooks/, installed as a package (setup.cfg)
    return Path(str(casebooks.__file__)).parent / "scenarios"


FIT_SUFFIX = ".fit.toml"  # a scenario file's fitted values, beside it (qmodel scenario calibrate)


def shipped_scenarios() -> dict[str, Path]:
    """The scenario files that ship with qmodel (:func:`shipped_folder`), by name (file stem)."""
    return {
        path.stem: path
        for path in shipped_folder().iterdir()
        if path.name.endswith(".toml") and not path.name.endswith(FIT_SUFFIX)
    }


def fit_path(path: str | Path) -> Path:
    """Where ``qmodel scenario calibrate`` writes a scenario file's fitted values, and where every reading
    of the file takes them from: beside it, ``NAME.fit.toml`` for ``NAME.toml``."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".toml") + FIT_SUFFIX)


def with_fitted(data: dict, fitted: dict) -> dict:
    """A scenario file's tables ``data`` with a fit file's ``fitted`` taking the place of the same keys:
    a top-level value replaced; a table's keys ([locks], [conversion], ...) each replaced; a
    [[member]] by its name and a [[path]] by its member and CF, key by key; [[calibration]] records
    added; [band] replaced. The fit file's own [fit] table (its method and rows) is not a scenario key."""
    merged = {key: value for key, value in data.items()}
    for key, value in fitted.items():
        if key == "fit":
            continue
        if key in ("member", "path") and isinstance(value, list):
            ends = ("name",) if key == "member" else ("member", "cf")
            tables = [dict(table) for table in merged.get(key, [])]
            for update in value:
                for table in tables:
                    if all(table.get(end) == update.get(end) for end in ends):
                        table.update(update)
            merged[key] = tables
        elif key == "calibration" and isinstance(value, list):
            merged[key] = [*merged.get(key, []), *value]
        elif isinstance(value, dict) and key != "band" and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def write_whole(path: Path, text: str) -> None:
    """``text`` to ``path`` whole or not at all: written to a temporary file beside it, then renamed
    into place (a reader sees the old file or the new one, never part of one)."""
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)
    except OSError as error:
        scratch.unlink(missing_ok=True)
        raise InputError(
            "output", str(path), "a file that can be written", reason=error.strerror or "cannot write"
        ) from None


def resolve_scenario(name: str | Path) -> Path:
    """A shipped scenario's path by name (``"gdps-env2"``), or ``name`` itself if it is a file: the one
    rule of ``qmodel scenario NAME`` and of :func:`qmodel.scenario.spec.load_scenario`."""
    shipped = shipped_scenarios()
    if str(name) in shipped:
        return shipped[str(name)]
    path = Path(name)
    if path.exists() and not path.is_dir():  # a device (/dev/null) too: reading it says what is wrong
        return path
    raise InputError(
        "scenario",
        str(name),
        "a scenario file or one of " + ", ".join(sorted(shipped)),
        reason="a directory" if path.is_dir() else "no such file",
    )
