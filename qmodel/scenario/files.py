"""Scenario files by name: the shipped ones (the GDPS study's environments) or a path."""

from __future__ import annotations

import importlib
from pathlib import Path

from qmodel.errors import InputError


def shipped_folder() -> Path:
    """The folder of the scenario files that ship with qmodel (casebooks/scenarios), found beside the
    package qmodel.casebooks (installed or editable) rather than through importlib.resources, whose
    import costs a start-up of ``qmodel scenario`` 4 ms."""
    casebooks = importlib.import_module("qmodel.casebooks")  # casebooks/, installed as a package (setup.cfg)
    return Path(str(casebooks.__file__)).parent / "scenarios"


def shipped_scenarios() -> dict[str, Path]:
    """The scenario files that ship with qmodel (:func:`shipped_folder`), by name (file stem)."""
    return {path.stem: path for path in shipped_folder().iterdir() if path.name.endswith(".toml")}


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
