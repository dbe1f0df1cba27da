"""``qmodel check``: try to break catalogue entries, a user's file or the shipped catalogue."""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION
from qmodel.errors import InputError


@click.command(
    epilog="""\b
Examples:
  $ qmodel check ranks.toml
  $ qmodel check ranks.toml rank_host_io --examples 1000 --no-time-limit
  $ qmodel check --builtin mm1 mmc
  $ qmodel check --builtin --no-time-limit
\b
For each entry: the file loads (declared symbols, units that fit, domains),
then each declared property is tried on inputs drawn from the domains, every
output is compared with a 50-digit evaluation of its expression, and the
outputs must stay finite wherever the domains and constraints allow. A
failure shows the smallest counterexample found, inputs in their units.
Exit 0 all passed, 1 some check failed, 2 the file does not load.
\b
A run estimated past 10 s of CPU is refused before it starts, naming the
examples or entries that fit; --no-time-limit runs it anyway.
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
@click.option(
    "--no-time-limit",
    "no_time_limit",
    is_flag=True,
    help="Run a check estimated past the 10 s time limit (refused without it).",
)
@FORMAT_OPTION
def check(
    file: str | None,
    ids: tuple[str, ...],
    builtin: bool,
    examples: int,
    random_seed: int,
    no_time_limit: bool,
    fmt: str,
) -> None:
    """Property-test the entries of FILE.toml (or of the shipped catalogue with --builtin)."""
    from qmodel.catalogue.checks import check_entries
    from qmodel.output import render

    if examples < 1:
        raise InputError("--examples", examples, "a whole number >= 1")
    loaded, catalogue, context, label = _load(file, builtin)
    wanted = list(ids) if not builtin or not file else [file, *ids]
    unknown = [i for i in wanted if i not in catalogue]
    if unknown:
        raise InputError(
            "ID", unknown[0], "one of " + ", ".join(catalogue), reason=f"not an entry of {label}"
        )
    formulas = [catalogue[i] for i in wanted] if wanted else list(catalogue.values())
    _refuse_long_check(
        formulas,
        context,
        examples,
        loaded.compile_seconds() if loaded is not None else 0.0,
        "qmodel check --builtin ID..." if builtin else f"qmodel check {file} ID...",
        no_time_limit,
    )
    if loaded is not None:
        from qmodel.catalogue.user import use_loaded

        use_loaded(loaded, time_limit=False)  # parses, checks units, compiles and caches: estimated above
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


def _load(file: str | None, builtin: bool):
    """The user's files read (None with --builtin; compiled only once the run is estimated), the entries
    to check, the symbolic catalogue they live in, and a label for the report."""
    if builtin:
        from qmodel.catalogue.loader import load_catalogue
        from qmodel.catalogue.symbolic import shipped

        return None, load_catalogue(), shipped(), "the shipped catalogue"
    if file is None:
        raise InputError("FILE.toml", "missing", "a catalogue file, or --builtin")
    from qmodel.catalogue.user import load_catalogues, symbolic_catalogue

    loaded = load_catalogues([file])
    return loaded, loaded.formulas, symbolic_catalogue(loaded.formulas), file


def _refuse_long_check(
    formulas, context, examples: int, setup: float, by_id: str, no_time_limit: bool
) -> None:
    """Refuse (:func:`qmodel.limits.refuse_too_large`) a run estimated past the limits, before any of it:
    the compiling of a user's file (``setup`` seconds) and each entry's checks
    (:func:`qmodel.catalogue.checks.check_seconds`). The way out names the most examples that fit,
    how many entries fit whichever are named (the costliest counted) or, when compiling the file leaves
    no time for any, how many a file may have, and --no-time-limit."""
    from qmodel import limits
    from qmodel.catalogue.checks import BYTES_PER_ENTRY, check_counts, check_seconds
    from qmodel.catalogue.user import SECONDS_PER_ENTRY_COMPILE

    counts = check_counts(formulas, context)
    costs = [check_seconds(count, examples) for count in counts]
    fixed = setup + sum(check_seconds(count, 0) for count in counts)
    per_example = (setup + sum(costs) - fixed) / examples
    most_examples = int((limits.TIME_LIMIT - fixed) / per_example)
    ways = [f"--examples {most_examples:,}"] if 1 <= most_examples < examples else []
    fitting = _fitting(costs, limits.TIME_LIMIT - setup)
    in_file = _fitting([cost + SECONDS_PER_ENTRY_COMPILE for cost in costs], limits.TIME_LIMIT)
    if 1 <= fitting < len(formulas):
        ways.append(f"any {fitting:,} entr{'y' if fitting == 1 else 'ies'} by ID ({by_id})")
    elif setup and in_file:
        ways.append(f"a file of at most {in_file:,} of its entries")
    ways.append("--no-time-limit to run it all")
    limits.refuse_too_large(
        len(formulas) * BYTES_PER_ENTRY,
        0.0 if no_time_limit else setup + sum(costs),
        f"check of {len(formulas):,} entr{'y' if len(formulas) == 1 else 'ies'} "
        f"({sum(counts):,} checks x {examples:,} examples)",
        ", ".join(ways[:-1]) + f" or {ways[-1]}" if len(ways) > 1 else ways[0],
    )


def _fitting(costs: list[float], budget: float) -> int:
    """How many of the costliest of ``costs`` fit in ``budget`` together (so any that many do)."""
    spent, count = 0.0, 0
    for cost in sorted(costs, reverse=True):
        spent += cost
        if spent > budget:
            break
        count += 1
    return count


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
