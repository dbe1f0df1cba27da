"""``qmodel formula list`` and ``qmodel formula show``: the catalogue."""

from __future__ import annotations

import click

from qmodel.cli.common import CATALOGUE_OPTION, FORMAT_OPTION, QmodelGroup
from qmodel.output import render


@click.group(cls=QmodelGroup)
def formula() -> None:
    """The formula catalogue: list entries, show one with its symbols, units and source."""


@formula.command("list", epilog="\b\nExample:\n  $ qmodel formula list --format csv\n\b\n"
                "Docs: docs/howto/catalogue.md\n"
                "Options: docs/reference/commands.md#qmodel-formula-list")
@FORMAT_OPTION
@CATALOGUE_OPTION
def formula_list(fmt: str) -> None:
    """List every catalogue entry: id, title and source (a user's entries marked with their file)."""
    from qmodel.catalogue.loader import load_catalogue, user_entries

    entries = {**load_catalogue(), **user_entries()}
    rows = [[f.id, f.title if f.builtin else f"{f.title} [{f.file}]", f.source] for f in entries.values()]
    render(["id", "title", "source"], rows, fmt, title="qmodel formula catalogue")


@formula.command("show", epilog="\b\nExample:\n  $ qmodel formula show mmc\n\b\n"
                "Docs: docs/howto/catalogue.md\n"
                "Options: docs/reference/commands.md#qmodel-formula-show")
@click.argument("formula_id")
@FORMAT_OPTION
@CATALOGUE_OPTION
def formula_show(formula_id: str, fmt: str) -> None:
    """Show a formula pretty-printed, its symbols with units and domains, and its source."""
    from qmodel.catalogue.describe import describe_formula
    from qmodel.catalogue.loader import get_formula

    describe_formula(get_formula(formula_id), fmt)
