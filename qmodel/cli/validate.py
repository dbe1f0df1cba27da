"""``qmodel validate``: the models against the studies' printed numbers."""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION


@click.command(
    epilog="""\b
Examples:
  $ qmodel validate
  $ qmodel validate gdps-pprc-100km-2006 --format csv > gdps.csv
  $ qmodel validate --strict
  $ qmodel validate --plot validation.png
\b
Docs: docs/howto/validate.md (site: howto/validate.html)
Options: docs/reference/commands.md#qmodel-validate"""
)
@click.argument("casebooks", nargs=-1, metavar="[CASEBOOK]...")
@FORMAT_OPTION
@click.option("--strict", is_flag=True, help="Exit 1 on any miss, explained or not.")
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Also draw each study's predictions against the papers, in tolerances (.png, .svg, .pdf).",
)
@click.pass_context
def validate(
    ctx: click.Context, casebooks: tuple[str, ...], fmt: str, strict: bool, plot_path: str | None
) -> None:
    """Check the models against the studies' printed numbers (all casebooks by default).

    The report opens with the scorecard per study and its headline: the
    predictions that agree within tolerance (ok and paper-slip) over those
    neither calibrated nor inconsistent; then every miss with its deviation
    and cause; then each case. JSON opens with the same scorecard.

    Verdicts: ok (within tolerance), paper-slip (the study's own arithmetic
    is wrong and the model agrees with the corrected value), inconsistent
    (the study's printed values disagree with each other: not agreement),
    calibrated (the row fitted a parameter: not a prediction), miss (the
    model does not reproduce the printed value). The report explains every
    case that is not plainly ok.

    Exit status: 0 when every case is ok or explained; 1 when a miss has no
    explanation or the model refused a case's inputs (with --strict: on any
    miss); 2 for a malformed casebook.
    """
    from qmodel.validation.judge import run_casebooks
    from qmodel.validation.report import report

    if plot_path:
        from qmodel.cli.plotting import check_plot_path

        check_plot_path(plot_path)
    results = run_casebooks(list(casebooks))
    report(results, fmt)
    if plot_path:
        from qmodel.cli.plotting import plot_validation

        plot_validation(results, plot_path)
    unexplained = sum(not r.explained for r in results)
    misses = sum(r.verdict == "miss" for r in results)
    if unexplained:
        click.echo(f"failed: {unexplained} case(s) unexplained or refused by the model", err=True)
    elif strict and misses:
        click.echo(f"failed (--strict): {misses} miss(es), explained but not within tolerance", err=True)
    ctx.exit(1 if unexplained or (strict and misses) else 0)
