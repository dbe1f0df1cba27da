"""Counting that cannot flatter (issue 32 §5): the end-to-end results by kind beside a naive baseline, and
each verdict that rests on the run's castout owner shown both ways."""

from __future__ import annotations

import json
from functools import cache

from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.validation.by_kind import (
    AGREEING,
    E2E_CASEBOOK,
    KINDS,
    baseline_agrees,
    baseline_cell,
    cells_of,
    is_prediction,
    kind_of,
    kind_scores,
    owner_verdicts,
)
from qmodel.validation.judge import CaseResult, run_casebooks


@cache
def e2e() -> tuple[CaseResult, ...]:
    return tuple(run_casebooks([E2E_CASEBOOK]))


def test_the_baseline_of_a_row_is_its_tables_printed_0_km_value() -> None:
    by_id = {r.case.id: r.case for r in e2e()}
    cells = cells_of(list(e2e()))
    row = by_id["e2e-env2-tpno-response-40km"]
    assert baseline_cell(row) == ("cell", "e2e-env2-tpno", "resp", "0km")
    assert cells[(baseline_cell(row), row.quantity)] is by_id["e2e-env2-tpno-response-0km"]
    assert baseline_agrees(row, cells) is False  # 34 against 52: 35% off
    count = by_id["e2e-env2-tpno-number-40km"]  # 6820 against 6841: 0.3%, inside 3%
    assert baseline_agrees(count, cells) is True
    # non-pprc is a column like the others: the 0 km value carried to it (30 against 29: 3.4%, inside 10%)
    assert baseline_agrees(by_id["e2e-env2-g1p1-response-non-pprc"], cells) is True
    assert baseline_agrees(by_id["e2e-env3-g1p2-cpu-cics-100km"], cells) is False  # 12.3 against 34.2


def test_each_kind_counts_its_predictions_only_and_the_counts_add_up() -> None:
    results = list(e2e())
    scores = {score.kind: score for score in kind_scores(results)}
    assert set(scores) == {*KINDS.values(), "all"}
    for kind, score in scores.items():
        picked = [r for r in results if (kind == "all" and kind_of(r.case)) or kind_of(r.case) == kind]
        predictions = [r for r in picked if is_prediction(r)]
        assert score.predictions == len(predictions)
        assert score.model == sum(r.verdict in AGREEING for r in predictions)
        # the two shares differ only by the rows one of them gets and the other does not
        assert score.model - score.model_only == score.baseline - score.baseline_only
    assert scores["all"].predictions == sum(s.predictions for k, s in scores.items() if k != "all")
    # a calibrated row is never counted either way
    calibrated = [r for r in results if kind_of(r.case) and r.verdict == "calibrated"]
    assert calibrated and not any(is_prediction(r) for r in calibrated)


def test_a_count_that_hardly_moves_is_matched_by_the_baseline() -> None:
    """The reason to count by kind: most transaction counts are within 3% of their 0 km value."""
    count = next(s for s in kind_scores(list(e2e())) if s.kind == "count")
    assert count.baseline >= count.predictions / 2


def test_a_verdict_that_rests_on_the_castout_owner_is_shown_both_ways() -> None:
    owners = owner_verdicts(list(e2e()))
    assert owners and {o.case.inputs["scenario"] for o in owners} == {"gdps-env1"}
    for o in owners:
        assert o.other_owner != o.printed_owner and {o.printed_owner, o.other_owner} == {"G1P1", "G1P2"}
    changed = [o for o in owners if o.depends]
    assert changed
    for o in changed:  # the model's value moves with the owner wherever the verdict does
        assert o.other_value != o.printed.computed


def test_validate_prints_the_kinds_and_the_owner_and_json_carries_them() -> None:
    text = CliRunner().invoke(cli, ["validate", E2E_CASEBOOK], env={"COLUMNS": "80"}).output
    assert "naive baseline" in text and "castout owner" in text
    payload = json.loads(CliRunner().invoke(cli, ["validate", E2E_CASEBOOK, "--format", "json"]).output)
    kinds = {row["kind"]: row for row in payload["scorecard"]["e2e_by_kind"]}
    assert kinds["response"]["predictions"] == sum(
        1
        for case in payload["cases"]
        if case["quantity"] == "scenario.response_time" and case["verdict"] in ("ok", "paper-slip", "miss")
    )
    assert all(
        {"printed_owner", "verdict", "verdict_with_other"} <= set(row)
        for row in payload["scorecard"]["e2e_castout_owner"]
    )
