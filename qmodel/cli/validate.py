"""``qmodel validate``: the models against the studies' printed numbers."""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION


@click.command(epilog="""\b
Examples:
  $ qmodel validate
  $ qmodel validate gdps-pprc-100km-2006 --format json""")
@click.argument("casebooks", nargs=-1, metavar="[CASEBOOK]...")
@FORMAT_OPTION
@click.pass_context
def validate(ctx: click.Context, casebooks: tuple[str, ...], fmt: str) -> None:
    """Check the models against the studies' printed numbers (all casebooks by default).

    Verdicts: ok (within tolerance), miss, paper-slip (the study's own
    arithmetic is wrong and the model agrees with the recomputed value),
    calibrated (the row was used to fit a parameter: not a prediction).
    Exits 1 when any case is a miss.
    """
    from qmodel.validation.casebook import report, run_casebooks

    results = run_casebooks(list(casebooks))
    report(results, fmt)
    ctx.exit(1 if any(r.verdict == "miss" for r in results) else 0)
