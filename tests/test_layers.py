"""Imports point down the layers: qmodel's import graph has no cycle, hidden or not (issue 23).

The graph is built from the source (ast) over every module of qmodel, imports inside functions
included: a function-level import does not break a cycle, it only hides it until run time. An upper
layer registers what it adds with a lower one (qmodel.studies.quantities with qmodel.registry), never
the other way round.

A function-level import of a qmodel module is allowed only where ``DEFERRED`` says why (third-party
modules, such as sympy, scipy, numba or matplotlib kept off the quick path, are not qmodel modules and
are not listed).
"""

from __future__ import annotations

import ast
from pathlib import Path

import qmodel

PACKAGE = Path(qmodel.__file__).parent

_COMMAND = "a command loads its engine only when it runs: the start-up of every other command"
_SYMPY = "the module imports sympy: kept off the quick path"
_GENERATED = ("the generated module is read when used, so that the code generator still runs when it is "
              "missing or stale")
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
    ("qmodel.catalogue.loader", "qmodel.registry"): "names are checked against the registry only for "
                                                     "entries that name an algorithm or a model",
    ("qmodel.catalogue.loader", "qmodel.tomlread"): "TOML is parsed only when a catalogue file is read "
                                                     "(the quick path reads the generated module)",
    ("qmodel.networks.model", "qmodel.tomlread"): "TOML is parsed only when a model file is read",
    ("qmodel.scenario.spec", "qmodel.tomlread"): "TOML is parsed only when a scenario file is read",
    ("qmodel.output", "qmodel.errors"): "only a refused output path needs it",
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
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                       for alias in node.names]
        else:
            continue
        found += [(target, id(node) in inside) for target in targets if target.split(".")[0] == "qmodel"]
    return found


GRAPH = {name: _imports(name, path.read_text(encoding="utf-8"), path.name == "__init__.py")
         for name, path in MODULES.items()}


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
                return [*stack[stack.index(target):], target]
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
    source = ("from qmodel.errors import InputError\n\n"
              "def scenario(**inputs):\n    from qmodel.scenario.cases import scenario_quantity\n"
              "    from . import units\n")
    assert _imports("qmodel.registry", source) == [
        ("qmodel.errors", False), ("qmodel.scenario.cases", True), ("qmodel.units", True)]
    assert ("qmodel.registry", "qmodel.scenario.cases") not in {
        (module, target) for module, targets in GRAPH.items() for target, _ in targets}


def _deferred_reason(module: str, target: str) -> str | None:
    for (where, what), reason in DEFERRED.items():
        if (module == where or module.startswith(where + ".")) and what in ("*", target):
            return reason
    return None


def test_no_qmodel_module_is_imported_inside_a_function_without_a_reason() -> None:
    unexplained = sorted({(module, target) for module, targets in GRAPH.items() for target, inside in targets
                          if inside and _deferred_reason(module, target) is None})
    assert unexplained == []


def test_every_deferred_import_listed_still_exists() -> None:
    """A listed exception that no longer happens is removed from the list, which only shrinks."""
    happening = {(module, target) for module, targets in GRAPH.items()
                 for target, inside in targets if inside}
    for where, what in DEFERRED:
        assert any((module == where or module.startswith(where + ".")) and what in ("*", target)
                   for module, target in happening), (where, what)
