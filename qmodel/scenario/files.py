"""Scenario files by name: the shipped ones (the GDPS study's environments) or a path."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from qmodel.errors import InputError


def shipped_scenarios() -> dict[str, Path]:
    """The scenario files that ship with qmodel (casebooks/scenarios), by name (file stem)."""
    folder = resources.files("qmodel.casebooks").joinpath("scenarios")
    return {Path(p.name).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(".toml")}


def resolve_scenario(name: str) -> Path:
    """A shipped scenario's path by name, or ``name`` itself if it is a file."""
    shipped = shipped_scenarios()
    if name in shipped:
        return shipped[name]
    path = Path(name)
    if path.is_file():
        return path
    raise InputError(
        "scenario", name, "a scenario file or one of " + ", ".join(sorted(shipped)), reason="no such file"
    )
