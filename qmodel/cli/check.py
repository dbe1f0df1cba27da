"""``qmodel check``: try to break catalogue entries, a user's file or the shipped catalogue."""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION
from qmodel.errors import InputError


@click.command(
    epilog="""\b
Examples:
  $ qmodel check ranks.toml
  $ qmodel check ranks.toml rank_host_io --examples 1000
  $ qmodel check --builtin mm1 mmc
\b
For each entry: the file loads (declared symbols, units that fit, domains),
then each declared property is tried on inputs drawn from the domains, every
output is compared with a 50-digit evaluation of its expression, and the
outputs must stay finite wherever the domains and constraints allow. A
failure shows the smallest counterexample found, inputs in their units.
Exit 0 all passed, 1 some check failed, 2 the file does not load.
\b
Docs: docs/howto/own-formulas.md (site: howto/own-formulas.html)
Options: docs/reference/commands.md#qmodel-check"""
)
@click.argument("file", required=False, metavar="FILE.toml")
@click.argument("ids", nargs=-1, metavar="[ID...]")
@click.option("--builtin", is_flag=True, help="Check the shipped catalogue (then every argument is an ID).")
@click.option(
    "--examples",
    default=100,
    show_default=True,
    metavar="N",
    help="Draws per check: more finds rarer failures, takes longer.",
)
@click.option(
    "--seed",
    "random_seed",
    default=0,
    show_default=True,
    metavar="S",
    help="Seed of the draws: the same seed repeats the same run.",
)
@FORMAT_OPTION
def check(
    file: str | None, ids: tuple[str, ...], builtin: bool, examples: int, random_seed: int, fmt: str
) -> None:
    """Property-test the entries of FILE.toml (or of the shipped catalogue with --builtin)."""
    from qmodel.catalogue.checks import check_entries
    from qmodel.output import render

    if examples < 1:
        raise InputError("--examples", examples, "a whole number >= 1")
    catalogue, context, label = _load(file, ids, builtin)
    wanted = list(ids) if not builtin or not file else [file, *ids]
    unknown = [i for i in wanted if i not in catalogue]
    if unknown:
        raise InputError(
            "ID", unknown[0], "one of " + ", ".join(catalogue), reason=f"not an entry of {label}"
        )
    formulas = [catalogue[i] for i in wanted] if wanted else list(catalogue.values())
    report = _Reporter() if fmt == "table" else None
    if fmt == "table":
        click.echo(
            f"checking {len(formulas)} entr{'y' if len(formulas) == 1 else 'ies'} of {label}: "
            f"{examples} examples per check, seed {random_seed}"
        )
    results = check_entries(formulas, context, examples, random_seed, report)
    failed = [r for r in results if not r.passed]
    summary = (
        f"{len(results)} checks of {len(formulas)} entr{'y' if len(formulas) == 1 else 'ies'}: "
        f"{len(results) - len(failed)} passed, {len(failed)} failed"
    )
    if fmt == "table":
        click.echo(summary)
    else:
        rows = [[r.formula_id, r.check, "passed" if r.passed else "failed", r.message] for r in results]
        render(
            ["id", "check", "result", "counterexample"],
            rows,
            fmt,
            json_payload={
                "catalogue": label,
                "examples": examples,
                "seed": random_seed,
                "passed": len(results) - len(failed),
                "failed": len(failed),
                "results": [
                    dict(zip(["id", "check", "result", "counterexample"], row, strict=True)) for row in rows
                ],
            },
        )
    click.get_current_context().exit(1 if failed else 0)


def _load(file: str | None, ids: tuple[str, ...], builtin: bool):
    """The entries to check, the symbolic catalogue they live in, and a label for the report."""
    if builtin:
        from qmodel.catalogue.loader import load_catalogue
        from qmodel.catalogue.symbolic import shipped

        return load_catalogue(), shipped(), "the shipped catalogue"
    if file is None:
        raise InputError("FILE.toml", "missing", "a catalogue file, or --builtin")
    from qmodel.catalogue.user import symbolic_catalogue, use_catalogues

    formulas = use_catalogues([file])  # loads, parses, checks units, compiles and caches
    return formulas, symbolic_catalogue(formulas), file


class _Reporter:
    """Prints one line per check as it finishes, under its entry's id; a failure's counterexample
    is wrapped to the terminal below it between its clauses, a number never split from its name."""

    def __init__(self) -> None:
        import shutil

        self.entry = ""
        self.width = max(40, shutil.get_terminal_size((80, 24)).columns) - 10

    def __call__(self, result) -> None:
        import re

        if result.formula_id != self.entry:
            click.echo(result.formula_id)
            self.entry = result.formula_id
        click.echo(f"  {'passed' if result.passed else 'FAILED'}  {result.check}")
        if not result.passed:
            line = ""
            for part in re.split(r"(?<=[,;]) | (?=but |at )", result.message):  # "name = value" kept whole
                if line and len(line) + 1 + len(part) > self.width:
                    click.echo(f"          {line}")
                    line = part
                else:
                    line = f"{line} {part}" if line else part
            click.echo(f"          {line}")
