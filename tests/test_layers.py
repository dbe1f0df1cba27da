"""Imports point down the layers: qmodel's import graph has no cycle, hidden or not (issue 23).

The graph is built from the source (ast) over every module of qmodel, imports inside functions
included: a function-level import does not break a cycle, it only hides it until run time. An upper
layer registers what it adds with a lower one (qmodel.validation.quantities with
qmodel.catalogue.registry), never the other way round.

A function-level import of a qmodel module is allowed only where ``DEFERRED`` says why (third-party
modules, such as sympy, scipy, numba or matplotlib kept off the quick path, are not qmodel modules and
are not listed).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "qmodel"  # the source tree (CI installs a copy)

_COMMAND = "a command loads its engine only when it runs: the start-up of every other command"
_SYMPY = "the module imports sympy: kept off the quick path"
_GENERATED = (
    "the generated module is read when used, so that the code generator still runs when it is "
    "missing or stale"
)
_REGISTRY = "names are checked against the registry only for entries that name an algorithm or a model"
_USER = "a planner's own catalogue is compiled (sympy, codegen) only when one is given"

# (importing module or package prefix, imported module): why it is imported inside a function.
DEFERRED = {
    ("qmodel.cli", "*"): _COMMAND,
    ("qmodel.catalogue.inverse", "qmodel.catalogue.symbolic"): _SYMPY,
    ("qmodel.catalogue.user", "qmodel.catalogue.symbolic"): _SYMPY,
    ("qmodel.catalogue.user", "qmodel.catalogue.codegen"): _USER,
    ("qmodel.catalogue.user", "qmodel.catalogue.loader"): _USER,
    ("qmodel.catalogue.user", "qmodel.catalogue._compiled"): _GENERATED,
    ("qmodel.catalogue.user", "qmodel"): "the version, for the cache key of a compiled user catalogue",
    ("qmodel.catalogue.evaluate", "qmodel.catalogue.user"): _USER,
    ("qmodel.catalogue.loader", "qmodel.catalogue._compiled"): _GENERATED,
    ("qmodel.catalogue.loader", "qmodel.catalogue.registry"): _REGISTRY,
    ("qmodel.catalogue.loader", "qmodel.tomlread"): "TOML is parsed only when a catalogue file is read "
    "(the quick path reads the generated module)",
    **{
        ("qmodel.scenario.measurements", f"qmodel.tables.{module}"): "the table readers load only when a "
        "measurements file is read (a scenario's answer imports the module, for the band's fit)"
        for module in ("workbook", "csvsource", "files")
    },
    ("qmodel.validation.judge", "qmodel.catalogue.inverse"): "the inverse solver (sympy) only for a case "
    "that solves for an input",
}


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("qmodel", *path.relative_to(PACKAGE).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


MODULES = _modules()


def _imports(name: str, source: str, is_package: bool = False) -> list[tuple[str, bool]]:
    """(imported qmodel module, inside a function?) for every import of the module."""
    tree = ast.parse(source)
    package = name if is_package else name.rpartition(".")[0]
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(node) for function in functions for node in ast.walk(function)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *filter(None, [base])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names
            ]
        else:
            continue
        found += [(target, id(node) in inside) for target in targets if target.split(".")[0] == "qmodel"]
    return found


GRAPH = {
    name: _imports(name, path.read_text(encoding="utf-8"), path.name == "__init__.py")
    for name, path in MODULES.items()
}


def _cycle() -> list[str]:
    """One import cycle of qmodel's modules, or [] (depth-first search)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        stack.append(module)
        for target, _ in GRAPH.get(module, []):
            if target not in GRAPH or target == module:
                continue
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[module] = 2
        return []

    for module in GRAPH:
        if module not in state and (found := visit(module)):
            return found
    return []


def test_the_import_graph_has_no_cycle() -> None:
    assert _cycle() == []


def test_the_graph_sees_imports_inside_functions() -> None:
    """The registry reached up into the scenario inside a function, closing a cycle of 14 modules; such
    an import is an edge of the graph like any other."""
    source = (
        "from qmodel.errors import InputError\n\n"
        "def scenario(**inputs):\n    from qmodel.scenario.cases import scenario_quantity\n"
        "    from .. import units\n"
    )
    assert _imports("qmodel.catalogue.registry", source) == [
        ("qmodel.errors", False),
        ("qmodel.scenario.cases", True),
        ("qmodel.units", True),
    ]
    assert ("qmodel.catalogue.registry", "qmodel.scenario.cases") not in {
        (module, target) for module, targets in GRAPH.items() for target, _ in targets
    }


def _deferred_reason(module: str, target: str) -> str | None:
    for (where, what), reason in DEFERRED.items():
        if (module == where or module.startswith(where + ".")) and what in ("*", target):
            return reason
    return None


def test_no_qmodel_module_is_imported_inside_a_function_without_a_reason() -> None:
    unexplained = sorted(
        {
            (module, target)
            for module, targets in GRAPH.items()
            for target, inside in targets
            if inside and _deferred_reason(module, target) is None
        }
    )
    assert unexplained == []


def test_every_deferred_import_listed_still_exists() -> None:
    """A listed exception that no longer happens is removed from the list, which only shrinks."""
    happening = {
        (module, target) for module, targets in GRAPH.items() for target, inside in targets if inside
    }
    for where, what in DEFERRED:
        assert any(
            (module == where or module.startswith(where + ".")) and what in ("*", target)
            for module, target in happening
        ), (where, what)


# Each package is one layer: which packages a package may import (besides itself). The root package's
# modules (errors, safetext, units, limits, domains, tomlread, output, outfile, frames) are the
# foundation; the table I/O (tables/: CSV dialects, workbooks) stands right on it; ``qmodel/__init__.py``
# is the face, and imports nothing of qmodel. The table is a ladder: a package may import everything a
# package below it may, and the packages below it. The formula-row batch reads tables and the catalogue
# and serves only the command line: it stands with the interfaces, above the scenario, which reads its
# tables itself.
LADDER = (
    "foundation",
    "tables",
    "algorithms",
    "catalogue",
    "networks",
    "studies",
    "scenario",
    "batch",
    "validation",
    "cli",
)
# every layer may read the face (qmodel.__version__)
MAY_IMPORT = {package: {"face", *LADDER[:floor]} for floor, package in enumerate(LADDER)}
OWN_LAYER_MODULES = {"batch"}  # a module of the root package that is a layer of its own


def package_of(module: str) -> str:
    """The layer a module belongs to: its subpackage, or the foundation for the root package's modules."""
    parts = module.split(".")
    if len(parts) == 1:
        return "face"
    if (PACKAGE / parts[1]).is_dir() or parts[1] in OWN_LAYER_MODULES:
        return parts[1]
    return "foundation"


def upward_imports(graph: dict[str, list[tuple[str, bool]]]) -> list[tuple[str, str]]:
    """(module, imported module) for every import of a package its layer may not import."""
    found = []
    for module, targets in graph.items():
        mine = package_of(module)
        for target, _ in targets:
            theirs = package_of(target)
            if theirs != mine and theirs not in MAY_IMPORT.get(mine, set()):
                found.append((module, target))
    return sorted(found)


def test_every_package_is_one_layer() -> None:
    """No import runs back up: each package imports only the packages below it on the ladder."""
    assert {package_of(module) for module in GRAPH} <= {*LADDER, "face"}
    assert upward_imports(GRAPH) == []


def test_an_upward_import_is_caught() -> None:
    """The check is not vacuous: a deliberate import of the scenario from the catalogue fails it, as does a
    foundation module importing the catalogue."""
    graph = {
        **GRAPH,
        "qmodel.catalogue.loader": [*GRAPH["qmodel.catalogue.loader"], ("qmodel.scenario.spec", True)],
        "qmodel.units": [*GRAPH["qmodel.units"], ("qmodel.catalogue.evaluate", False)],
    }
    assert upward_imports(graph) == [
        ("qmodel.catalogue.loader", "qmodel.scenario.spec"),
        ("qmodel.units", "qmodel.catalogue.evaluate"),
    ]


def test_the_face_imports_nothing_of_qmodel() -> None:
    assert GRAPH["qmodel"] == []


def test_the_architecture_page_states_the_ladder() -> None:
    """docs/contributing/architecture.md's layer table lists the packages in the ladder's order."""
    page = (PACKAGE.parent / "docs" / "contributing" / "architecture.md").read_text(encoding="utf-8")
    rows = [
        line.split("|")[1].strip()
        for line in page.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().split(".")[0].isdigit()
    ]
    assert [row.split(". ", 1)[1] for row in rows] == list(LADDER)
