"""The public API in one place (issue 31): qmodel/api.py names it, each name imports and is documented
with its parameters and returns, and the Python API page of the docs shows exactly these names."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from qmodel.api import PUBLIC

PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "python-api.md"
BLOCK = re.compile(r"^::: (?P<module>[\w.]+)\n(?:    .*\n)*?      members: \[(?P<members>[^\]]*)\]", re.M)
NAMES = [(module, name) for module, names in PUBLIC.items() for name in names]


@pytest.mark.parametrize(("module", "name"), NAMES, ids=[f"{m}.{n}" for m, n in NAMES])
def test_each_public_name_imports_and_says_what_it_is(module: str, name: str) -> None:
    thing = getattr(importlib.import_module(module), name)
    assert inspect.getdoc(thing), f"{module}.{name} has no docstring"
    if inspect.isfunction(thing):
        documented = set(re.findall(r":param (\w+):", inspect.getdoc(thing) or ""))
        parameters = set(inspect.signature(thing).parameters)
        assert parameters == documented, f"{module}.{name}: parameters {parameters}, documented {documented}"
        assert ":returns:" in (inspect.getdoc(thing) or ""), f"{module}.{name} does not say what it returns"


def test_the_python_api_page_shows_exactly_the_public_names() -> None:
    shown = {
        found["module"]: tuple(part.strip() for part in found["members"].split(","))
        for found in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))
    }
    assert shown == PUBLIC


def test_a_package_that_lists_its_names_lists_the_public_ones() -> None:
    for module, names in PUBLIC.items():
        exported = getattr(importlib.import_module(module), "__all__", None)
        if exported is not None:
            assert set(names) <= set(exported), module
