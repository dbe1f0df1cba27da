"""The end-to-end results counted so that they cannot flatter: by kind, beside a naive baseline, and
where a verdict rests on a per-run fact read from the study's tables, both ways.

The scenario solver's end-to-end cases (the casebook :data:`E2E_CASEBOOK`) are of four kinds
(:data:`KINDS`): response time, percentile (share within the goal), transaction count and CPU. A share
of agreement pooled over them reads as good as its easiest kind: a transaction count that hardly moves
with distance is matched by any model that keeps it. So each kind is counted apart, beside the
**naive baseline**: each member's (or row's) printed value at pprc 0 km carried to every other column
of its table, judged by the same tolerance. Agreement is read above what the baseline already gets.

Environment 1's rows name each run's castout owner (``castout_owner``), read from the study's bold
print: a per-run fact, not a planner's input. :func:`owner_verdicts` gives every such prediction's
verdict with the printed owner and with each other member as owner, so a reader sees which agreements
rest on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from qmodel.validation.casebook import Case
from qmodel.validation.judge import CaseResult, compute, verdict, within

E2E_CASEBOOK = "gdps-pprc-100km-2006-e2e"
# the scenario quantity of each kind, as the casebook names it
KINDS = {
    "response_time": "response",
    "share_within_goal": "percentile",
    "transactions": "count",
    "cpu_of_one_cp": "CPU",
}
BASE_COLUMN = "0km"  # the column the baseline carries: pprc 0 km, where every member is calibrated
AGREEING = ("ok", "paper-slip")


def kind_of(case: Case) -> str | None:
    """The case's kind (:data:`KINDS`), None for any other quantity."""
    entry, _, output = case.quantity.partition(".")
    return KINDS.get(output) if entry == "scenario" else None


def baseline_cell(case: Case) -> tuple | None:
    """The printed cell the baseline carries to ``case``: its table's row at pprc 0 km (None where the case
    is not a table cell)."""
    if not case.printed or case.printed[0] != "cell":
        return None
    kind, table, row, _ = case.printed
    return (kind, table, row, BASE_COLUMN)


def is_prediction(result: CaseResult) -> bool:
    """Judged as a prediction: neither calibrated (fitted, or a replay) nor inconsistent."""
    return result.verdict in (*AGREEING, "miss")


@dataclass(frozen=True)
class KindScore:
    """One kind's predictions, the model's agreement and the baseline's, and where they part."""

    kind: str
    predictions: int
    model: int  # within tolerance (ok or paper-slip)
    baseline: int  # the 0 km value within the same tolerance
    model_only: int
    baseline_only: int

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "predictions": self.predictions,
            "model_within": self.model,
            "baseline_within": self.baseline,
            "model_only": self.model_only,
            "baseline_only": self.baseline_only,
        }


def baseline_agrees(case: Case, cells: dict[tuple, Case]) -> bool | None:
    """Whether the baseline's value (:func:`baseline_cell`'s printed value, ``cells`` the casebook's cases
    by their printed cell and quantity) lies within the case's tolerance of its printed value; None where
    its table prints no 0 km value."""
    base = cells.get((baseline_cell(case), case.quantity))
    if base is None or base.paper is None or case.paper is None:
        return None
    return abs(within(base.printed_range[0], *case.printed_range, case.relative)) <= case.tolerance


def cells_of(results: list[CaseResult]) -> dict[tuple, Case]:
    """The cases by (printed cell, quantity), as :func:`baseline_agrees` looks them up."""
    return {(r.case.printed, r.case.quantity): r.case for r in results}


def kind_scores(results: list[CaseResult], casebook: str = E2E_CASEBOOK) -> list[KindScore]:
    """Per kind (in :data:`KINDS`' order), then "all": the casebook's predictions, how many the model and
    the baseline each get within tolerance, and how many only one of them does."""
    chosen = [r for r in results if r.case.casebook == casebook]
    cells = cells_of(chosen)
    counts: dict[str, list[tuple[bool, bool]]] = {kind: [] for kind in KINDS.values()}
    for result in chosen:
        kind = kind_of(result.case)
        if kind is None or not is_prediction(result):
            continue
        counts[kind].append((result.verdict in AGREEING, bool(baseline_agrees(result.case, cells))))
    every = [pair for pairs in counts.values() for pair in pairs]
    return [
        KindScore(
            kind,
            len(pairs),
            sum(m for m, _ in pairs),
            sum(b for _, b in pairs),
            sum(m and not b for m, b in pairs),
            sum(b and not m for m, b in pairs),
        )
        for kind, pairs in (*counts.items(), ("all", every))
        if pairs
    ]


@dataclass(frozen=True)
class OwnerVerdict:
    """A prediction whose run names its castout owner: its verdict with the printed owner and with the
    other member as owner (the model's value and deviation each way)."""

    case: Case
    printed_owner: str
    printed: CaseResult
    other_owner: str
    other_value: float
    other_verdict: str

    @property
    def depends(self) -> bool:
        """The verdict differs between the two owners."""
        return (self.printed.verdict in AGREEING) != (self.other_verdict in AGREEING)


def owner_verdicts(
    results: list[CaseResult], members: tuple[str, ...] = ("G1P1", "G1P2"), casebook: str = E2E_CASEBOOK
) -> list[OwnerVerdict]:
    """Every prediction of the casebook whose inputs name a castout owner, judged again with each other
    of ``members`` as owner (the study's two DB2 members)."""
    found = []
    for result in results:
        case = result.case
        owner = case.inputs.get("castout_owner")
        if case.casebook != casebook or not isinstance(owner, str) or not is_prediction(result):
            continue
        for other in (m for m in members if m != owner):
            value = compute(case, {**case.inputs, "castout_owner": other})
            found.append(OwnerVerdict(case, owner, result, other, value, verdict(case, value)[0]))
    return found


def kind_markdown(results: list[CaseResult]) -> str:
    """Markdown: the e2e predictions by kind beside the naive baseline, and the castout owner's verdicts
    both ways (every run, then the rows whose verdict changes with it)."""
    lines = [
        "| kind | predictions | model within tolerance | naive baseline within tolerance | "
        "model only | baseline only |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for score in kind_scores(results):
        name = "**all**" if score.kind == "all" else score.kind
        model, baseline = (f"{n} ({_share(n, score.predictions)})" for n in (score.model, score.baseline))
        lines.append(
            f"| {name} | {score.predictions} | {model} | {baseline} | {score.model_only} | "
            f"{score.baseline_only} |"
        )
    owners = owner_verdicts(results)
    agree_printed = sum(o.printed.verdict in AGREEING for o in owners)
    agree_other = sum(o.other_verdict in AGREEING for o in owners)
    lines += [
        "",
        "The naive baseline carries each row's printed pprc 0 km value to every other column of "
        "its table, judged by the same tolerance.",
        "",
        f"Castout owner: {len(owners)} predictions name their run's owner (read from the study's "
        f"bold print); {agree_printed} agree with the printed owner, {agree_other} with the other "
        "member as owner. The rows whose verdict changes with it:",
        "",
        "| case | printed owner | verdict | other owner | model | verdict |",
        "| --- | --- | --- | --- | ---: | --- |",
    ]
    lines += [
        f"| `{o.case.id}` | {o.printed_owner} | {o.printed.verdict} | {o.other_owner} | "
        f"{o.other_value:.4g} {o.case.unit} | {o.other_verdict} |"
        for o in owners
        if o.depends
    ]
    return "\n".join(lines)


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "n/a"
