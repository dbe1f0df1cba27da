"""``qmodel formula list`` and ``qmodel formula show``: the catalogue."""

from __future__ import annotations

import click

from qmodel.cli.common import (
    CATALOGUE_OPTION,
    FORMAT_OPTION,
    QmodelGroup,
    complete_domain,
    complete_formula_id,
)


@click.group(cls=QmodelGroup)
def formula() -> None:
    """The formula catalogue: list entries, show one with its symbols, units and source."""


@formula.command(
    "list",
    epilog="\b\nExamples:\n  $ qmodel formula list\n  $ qmodel formula list mirror\n"
    "  $ qmodel formula list --domain queues\n  $ qmodel formula list --format csv\n\b\n"
    "WORDS keep the entries whose id, title, source, notes or symbols hold every word\n"
    "(any case). The table gives id, domain and title; CSV and JSON the source too.\n\b\n"
    "Docs: docs/howto/catalogue.md (site: howto/catalogue.html)\n"
    "Options: docs/reference/commands.md#qmodel-formula-list",
)
@click.argument("words", nargs=-1, metavar="[WORD]...")
@click.option(
    "--domain",
    default=None,
    metavar="NAME",
    shell_complete=complete_domain,
    help="Only the entries of one domain (a formulas/NAME.toml file): distance, queues, storage, ...",
)
@FORMAT_OPTION
@CATALOGUE_OPTION
def formula_list(words: tuple[str, ...], domain: str | None, fmt: str) -> None:
    """List the catalogue's entries: id, domain and title (and source), a user's marked with their file."""
    from qmodel.catalogue.loader import load_catalogue, user_entries
    from qmodel.errors import InputError
    from qmodel.output import render

    entries = {**load_catalogue(), **user_entries()}
    domains = sorted({f.file.removesuffix(".toml") for f in entries.values()})
    if domain is not None and domain.removesuffix(".toml") not in domains:
        raise InputError("--domain", domain, ", ".join(domains), reason="not a domain of the catalogue")
    chosen = [
        f
        for f in entries.values()
        if (domain is None or f.file.removesuffix(".toml") == domain.removesuffix(".toml"))
        and all(word.lower() in _searched(f) for word in words)
    ]
    if not chosen:
        raise InputError(
            "WORD",
            " ".join(words),
            f"a word of an entry's id, title, source or symbols "
            f"({len(entries)} entries{f' in {domain}' if domain else ''}: qmodel formula list)",
            reason="no entry holds every word",
        )
    title = lambda f: f.title if f.builtin else f"{f.title} [{f.file}]"  # noqa: E731
    if fmt == "table":
        render(
            ["id", "domain", "title"],
            [[f.id, f.file.removesuffix(".toml"), title(f)] for f in chosen],
            fmt,
            title=f"qmodel formula catalogue: {len(chosen)} of {len(entries)} entries",
        )
        return
    render(
        ["id", "domain", "title", "source"],
        [[f.id, f.file.removesuffix(".toml"), title(f), f.source] for f in chosen],
        fmt,
    )


def _searched(entry) -> str:
    """What a WORD is looked for in: the entry's id, title, source, notes and its symbols' names and
    meanings, in lower case."""
    symbols = " ".join(f"{name} {symbol.meaning}" for name, symbol in entry.symbols.items())
    return " ".join([entry.id, entry.title, entry.source, entry.notes, symbols]).lower()


@formula.command(
    "show",
    epilog="\b\nExample:\n  $ qmodel formula show mmc\n\b\n"
    "Docs: docs/howto/catalogue.md (site: howto/catalogue.html)\n"
    "Options: docs/reference/commands.md#qmodel-formula-show",
)
@click.argument("formula_id", shell_complete=complete_formula_id)
@FORMAT_OPTION
@CATALOGUE_OPTION
def formula_show(formula_id: str, fmt: str) -> None:
    """Show a formula pretty-printed, its symbols with units and domains, and its source."""
    from qmodel.catalogue.describe import describe_formula
    from qmodel.catalogue.loader import get_formula

    describe_formula(get_formula(formula_id), fmt)
