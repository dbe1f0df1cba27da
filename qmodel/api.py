"""qmodel's public Python API in one place: each name a user imports, by the module it is imported from.

Each name here is documented with its parameters and returns, units included, on the Python API page
of the docs (docs/reference/python-api.md, rendered from the docstrings), and
tests/test_public_api.py holds both: every name imports, every function documents each parameter and
what it returns, and the page shows exactly these names. Anything else is the engine's inside and may
change. Results give their rows as records whose keys name their units (:mod:`qmodel.frames`).
"""

from __future__ import annotations

PUBLIC: dict[str, tuple[str, ...]] = {
    "qmodel.catalogue.evaluate": ("calc", "evaluate", "FormulaResult", "Evaluation"),
    "qmodel.catalogue.user": ("use_catalogues",),
    "qmodel.batch": ("run",),
    "qmodel.networks": (
        "network",
        "load_network",
        "solve",
        "approximation_error",
        "Network",
        "NetworkResult",
    ),
    "qmodel.scenario": (
        "load_scenario",
        "solve_scenario",
        "max_distance",
        "load_banded",
        "solve_banded",
        "max_distance_banded",
        "Scenario",
        "ScenarioResult",
        "GoalSeek",
        "Banded",
        "GoalBand",
    ),
    "qmodel.validation.report": ("validation_report", "ValidationReport"),
    "qmodel.frames": ("key", "split_key"),
    "qmodel.units": ("parse_value",),
    "qmodel.errors": ("InputError", "CatalogueError", "ConvergenceError", "MissingPackageError"),
}
