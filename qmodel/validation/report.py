"""The ``qmodel validate`` report: the scorecard first, then the misses, then the rest.

Table output is plain text laid out for the terminal's width (80 columns reads
well; piped output too): the per-study scorecard (:mod:`qmodel.validation.scorecard`)
and its headline, the misses with their deviations and causes, then a legend, each
study's cases grouped by quantity, the calibrations with the rows they predict, and
the explanation of every other case that is not plainly ``ok`` (an inconsistent case
with the printed values that disagree and the arithmetic). JSON opens with the same
scorecard, then the misses, then one record per case; CSV carries one record per case.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from qmodel import frames
from qmodel.output import console as make_console
from qmodel.output import format_number, render, wrap_at_spaces
from qmodel.units import with_unit
from qmodel.validation.by_kind import AGREEING, E2E_CASEBOOK, kind_scores, owner_verdicts
from qmodel.validation.judge import UNEXPLAINED, CaseResult, run_casebooks
from qmodel.validation.score import HEADERS, headline, rows, scorecard, totals

LEGEND = (
    ("ok", "the model is within tolerance of the printed value (or inside a printed range)"),
    ("paper-slip", "the study's own arithmetic is wrong here; the model matches the corrected value"),
    (
        "inconsistent",
        "the study's printed values disagree with each other here; no model can match "
        "them all (the values, citations and arithmetic are given below): not agreement, "
        "left out of the share",
    ),
    ("calibrated", "the row was used to fit a parameter: not a prediction, never counted as agreement"),
    ("miss", "the model does not reproduce the printed value; each miss is explained below"),
)
DEVIATION_NOTE = (
    "deviation = model − paper: in % of the paper value where the tolerance is relative, "
    "in the quantity's unit where it is absolute (pt: percentage points, for quantities "
    "that are themselves in %); 0 when the model falls inside a printed range. A "
    "calibration lists the cases that use its fitted value."
)
FIELDS = (
    "casebook",
    "case",
    "quantity",
    "paper",
    "model",
    "unit",
    "deviation",
    "verdict",
    "tolerance",
    "explained",
    "citation",
    "remark",
    "predicts",
    "uses",
    "deviation_value",
    "deviation_unit",
    "step",
    "disagree",
    "arithmetic",
)


def _with_unit(text: str, unit: str) -> str:
    """A value with its unit: none for counts and ratios, ``%`` without a space."""
    if unit in ("1", "ratio"):
        return text
    return f"{text}%" if unit == "%" else with_unit(text, unit)


def _decimals(value: float) -> int:
    """Decimals needed to write ``value`` as the casebook does (0.15 → 2, 5e-06 → 6, 2 → 0)."""
    text = f"{value:.10f}".rstrip("0")
    return len(text.partition(".")[2])


def _signed(value: float, decimals: int) -> str:
    text = f"{value:+.{decimals}f}"
    return "0" if float(text) == 0 else text


def deviation_text(result: CaseResult) -> str:
    """The deviation in one form: relative in % or absolute with the unit; no float noise."""
    if math.isnan(result.deviation):
        return "n/a"
    case = result.case
    if case.relative:
        return f"{_signed(result.deviation * 100, 2)}%"
    if case.tolerance > 0:  # one decimal finer than the tolerance: +2.5 against ±3 is not "+3"
        decimals = _decimals(case.tolerance) + 1
        return _absolute(_signed(result.deviation, decimals), case.unit)
    return _absolute("0" if result.deviation == 0 else f"{result.deviation:+.4g}", case.unit)


def deviation_value(result: CaseResult) -> tuple[float, str]:
    """The deviation as a number for a spreadsheet, and its unit: % of the paper value where the
    tolerance is relative, else the quantity's unit (pt for a quantity itself in %); NaN where the
    model gives no value."""
    case = result.case
    if case.relative:
        return result.deviation * 100, "%"
    return result.deviation, _absolute_unit(case.unit)


def _absolute_unit(unit: str) -> str:
    """The unit of an absolute deviation or tolerance: a difference of percentages is in points (pt), so
    it never reads like a relative deviation in %."""
    return "pt" if unit == "%" else unit


def _absolute(text: str, unit: str) -> str:
    """An absolute deviation or tolerance with its unit (:func:`_absolute_unit`)."""
    return _with_unit(text, _absolute_unit(unit))


def tolerance_text(result: CaseResult) -> str:
    """The tolerance beside the deviation: ±x% or ±x unit; "in range" or "exact" when it is zero."""
    case = result.case
    if case.fitted:
        return "n/a"
    if case.tolerance == 0:
        low, high = case.printed_range
        return "in range" if low != high else "exact"
    if case.relative:
        return f"±{case.tolerance * 100:g}%"
    return _absolute(f"±{case.tolerance:g}", case.unit)


def paper_text(result: CaseResult) -> str:
    if result.case.fitted:
        return "fitted"
    low, high = (format_number(end) for end in result.case.printed_range)
    return low if low == high else f"{low}–{high}"


def model_text(result: CaseResult) -> str:
    return "n/a" if math.isnan(result.computed) else format_number(result.computed)


def record(result: CaseResult) -> dict[str, Any]:
    """One case as the JSON and CSV outputs carry it (the fields of :data:`FIELDS`)."""
    case = result.case
    return {
        "casebook": case.casebook,
        "case": case.id,
        "quantity": case.quantity,
        "paper": paper_text(result),
        "model": model_text(result),
        "unit": case.unit,
        "deviation": deviation_text(result),
        "verdict": result.verdict,
        "tolerance": tolerance_text(result),
        "explained": result.explained,
        "citation": case.citation,
        "remark": result.remark,
        "predicts": " ".join(result.predicts),
        "uses": " ".join(case.depends_on),
        **_deviation_fields(result),
        "step": case.step,
        "disagree": "; ".join(_printed(value, citation) for value, citation in case.disagree),
        "arithmetic": case.arithmetic,
    }


def _printed(value: str, citation: str) -> str:
    return f"{value} ({citation})"


def _deviation_fields(result: CaseResult) -> dict[str, Any]:
    value, unit = deviation_value(result)
    return {"deviation_value": "" if math.isnan(value) else value, "deviation_unit": unit}


def _json_values(result: CaseResult) -> dict[str, Any]:
    """The same fields as numbers for JSON: paper (a number, [low, high] for a printed range, null
    for a fitted row), model (null where the model gives none), predicts and uses as lists."""
    printed = result.case.paper
    paper = None if printed is None else (printed[0] if printed[0] == printed[1] else list(printed))
    model = None if math.isnan(result.computed) else float(result.computed)
    value = deviation_value(result)[0]
    return {
        "paper": paper,
        "model": model,
        "predicts": list(result.predicts),
        "uses": list(result.case.depends_on),
        "deviation_value": None if math.isnan(value) else value,
        "disagree": [{"value": v, "citation": c} for v, c in result.case.disagree],
    }


def report_json(results: list[CaseResult]) -> dict[str, Any]:
    """The JSON report: the scorecard (headline and each study's counts), the misses, every case (the
    fields of :data:`FIELDS`, numbers as numbers) and the totals by verdict."""
    cases = [{**record(result), **_json_values(result)} for result in results]
    summary = {
        "headline": headline(results),
        "studies": [s.as_dict() for s in scorecard(results)],
        **_by_kind_json(results),
    }
    misses = [case for case in cases if case["verdict"] == "miss"]
    return {"scorecard": summary, "misses": misses, "cases": cases, "totals": totals(results)}


class _Page:
    """Plain-text output at a given width; words and numbers are never split across lines, except a word
    (a case id) longer than the whole line."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[str] = []

    def text(self, text: str, indent: int = 0, hanging: int = 0) -> None:
        self.lines += wrap_at_spaces(
            text,
            self.width,
            indent=" " * indent,
            subsequent_indent=" " * (indent + hanging),
            fold_long_words=True,
        ) or [""]

    def blank(self) -> None:
        self.lines.append("")

    def pack(self, items: list[str], indent: int) -> None:
        """Items side by side, two spaces apart, as many to a line as fit; an item is never split."""
        line = ""
        for item in items:
            if line and indent + len(line) + 2 + len(item) > self.width:
                self.lines.append(" " * indent + line)
                line = ""
            line = f"{line}  {item}" if line else item
        if line:
            self.lines.append(" " * indent + line)


_NUMERIC = ("paper", "model", "deviation", "tolerance")


def _study_table(page: _Page, results: list[CaseResult]) -> None:
    cells = [
        (r.case.id, paper_text(r), model_text(r), deviation_text(r), tolerance_text(r), r.verdict)
        for r in results
    ]
    widths = [
        max(len(header), *(len(row[i]) for row in cells))
        for i, header in enumerate(("case", *_NUMERIC, "verdict"))
    ]
    fixed = sum(widths[1:]) + 2 * 5
    narrow = fixed + 2 > page.width  # the numbers do not fit side by side: one case per block
    widths[0] = max(0, min(widths[0], page.width - fixed - 2))

    def line(row: tuple[str, ...]) -> str:
        numbers = "  ".join(text.rjust(width) for text, width in zip(row[1:5], widths[1:5], strict=True))
        return f"  {row[0]:<{widths[0]}}  {numbers}  {row[5]}".rstrip()

    if not narrow:
        page.lines.append(line(("case", *_NUMERIC, "verdict")))
    group = None
    for result, row in zip(results, cells, strict=True):
        if (result.case.quantity, result.case.unit) != group:
            group = (result.case.quantity, result.case.unit)
            unit = "" if result.case.unit == "1" else f" [{result.case.unit}]"
            page.text(f"{result.case.label}{unit}", indent=1, hanging=2)
        if narrow:
            page.text(row[0], indent=2)
            page.pack([f"{name} {text}" for name, text in zip(_NUMERIC, row[1:5], strict=True)] + [row[5]], 4)
            continue
        if len(row[0]) > widths[0]:
            page.lines.append(f"  {row[0]}")
            row = ("", *row[1:])
        page.lines.append(line(row))


def _scorecard_table(page: _Page, results: list[CaseResult]) -> None:
    """The per-study scorecard, columns one space apart; one study per block where they do not fit."""
    cells = rows(results)
    widths = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(HEADERS)]
    if 2 + sum(widths) + len(widths) - 1 > page.width:  # one study per block, each count named
        for row in cells:
            page.text(row[0], indent=2)
            page.pack([f"{h} {v}" for h, v in zip(HEADERS[1:], row[1:], strict=True)], 4)
        return
    for row in (HEADERS, *cells):
        page.lines.append(
            "  "
            + " ".join(
                [row[0].ljust(widths[0]), *(v.rjust(w) for v, w in zip(row[1:], widths[1:], strict=True))]
            )
        )


SCORECARD_KEY = (
    "pred: predictions (cases less calibrated rows); within: within tolerance (ok and "
    "paper-slip); slip: paper-slips; incons: inconsistent (printed values that disagree: not "
    "agreement); miss: misses; calib: calibrated rows (fitted, not predicted); cover: the "
    "study's model statements encoded; agree: within / (pred − incons)."
)


def _by_kind(page: _Page, results: list[CaseResult]) -> None:
    """The end-to-end predictions by kind beside the naive baseline, and how many verdicts change with the
    castout owner (:mod:`qmodel.validation.by_kind`); nothing where the end-to-end casebook is not judged."""
    scores = kind_scores(results)
    if not scores:
        return
    page.blank()
    page.text(
        f"End-to-end by kind ({E2E_CASEBOOK}), beside a naive baseline: each row's printed pprc 0 km "
        "value carried to every other column, judged by the same tolerance"
    )
    for score in scores:
        page.text(
            f"{score.kind}: model {score.model} of {score.predictions} within tolerance, baseline "
            f"{score.baseline}; only the model {score.model_only}, only the baseline "
            f"{score.baseline_only}",
            indent=2,
            hanging=2,
        )
    owners = owner_verdicts(results)
    changed = [o.case.id for o in owners if o.depends]
    page.text(
        f"castout owner (read from the study's bold print): {len(owners)} predictions name it; "
        f"{sum(o.printed.verdict in AGREEING for o in owners)} agree with the printed owner, "
        f"{sum(o.other_verdict in AGREEING for o in owners)} with the other member as owner; the "
        f"verdict changes with it for {len(changed)}: {', '.join(changed) or 'none'}",
        indent=2,
        hanging=2,
    )


def _by_kind_json(results: list[CaseResult]) -> dict[str, Any]:
    """The JSON scorecard's ``e2e_by_kind`` and ``e2e_castout_owner`` (absent where the end-to-end casebook
    is not judged)."""
    scores = kind_scores(results)
    if not scores:
        return {}
    owners = [
        {
            "case": o.case.id,
            "printed_owner": o.printed_owner,
            "verdict": o.printed.verdict,
            "other_owner": o.other_owner,
            "model_with_other": o.other_value,
            "verdict_with_other": o.other_verdict,
        }
        for o in owner_verdicts(results)
    ]
    return {"e2e_by_kind": [score.as_dict() for score in scores], "e2e_castout_owner": owners}


def _misses(page: _Page, results: list[CaseResult]) -> None:
    """Every miss with its deviation, grouped under its cause."""
    causes: dict[str, list[CaseResult]] = {}
    for r in results:
        if r.verdict == "miss":
            causes.setdefault(r.remark, []).append(r)
    if not causes:
        return
    page.blank()
    page.text(
        f"Misses ({sum(map(len, causes.values()))}): the model outside tolerance, with the deviation "
        "(model − paper) and the cause"
    )
    for remark, misses in causes.items():
        page.blank()
        for r in misses:
            page.text(
                f"{r.case.id}: paper {paper_text(r)}, model {model_text(r)}, deviation "
                f"{deviation_text(r)} (tolerance {tolerance_text(r)})",
                hanging=2,
            )
        page.text(remark, indent=2)


def _explanations(page: _Page, results: list[CaseResult]) -> None:
    calibrations = [r for r in results if r.verdict == "calibrated"]
    if calibrations:
        page.blank()
        page.text("Calibrations (fitted on the row named; predicting the cases listed)")
        fits = {r.case.id for r in calibrations}
        for r in calibrations:
            fitted_by = [i for i in r.case.depends_on if i in fits]
            if r.predicts:
                predicts = f"predicts {len(r.predicts)}: {', '.join(r.predicts)}"
            elif fitted_by:
                predicts = f"given back by the fit of {', '.join(fitted_by)}: not a prediction"
            else:
                predicts = "UNTESTED: no other case uses this fitted value"
            page.text(f"{r.case.id}: {r.remark} — {predicts}", indent=2, hanging=2)
    remarks: dict[tuple[str, str, tuple[tuple[str, str], ...], str], list[str]] = {}
    for r in results:
        if r.verdict not in ("ok", "calibrated", "miss") and r.remark:
            key = (r.verdict, r.remark, r.case.disagree, r.case.arithmetic)
            remarks.setdefault(key, []).append(r.case.id)
    notes = [(r.case.id, r.remark) for r in results if r.verdict == "ok" and r.remark]
    if remarks:
        page.blank()
        page.text("Explanations (every other case that is not plainly ok)")
        for (verdict, remark, disagree, arithmetic), case_ids in remarks.items():
            page.blank()
            page.text(f"{verdict}: {', '.join(case_ids)}", indent=0, hanging=2)
            page.text(remark, indent=2)
            for value, citation in disagree:
                page.text(f"printed: {_printed(value, citation)}", indent=2, hanging=2)
            if arithmetic:
                page.text(f"arithmetic: {arithmetic}", indent=2, hanging=2)
    if notes:
        page.blank()
        page.text("Notes on ok cases")
        for case_id, note in notes:
            page.text(f"{case_id}: {note}", indent=2, hanging=2)


def report(results: list[CaseResult], fmt: str) -> None:
    """Print the paper-vs-model comparison (table, JSON or CSV): the scorecard first."""
    records = [record(r) for r in results]
    if fmt == "csv":
        render(FIELDS, [[rec[name] for name in FIELDS] for rec in records], fmt)
        return
    if fmt == "json":
        render(FIELDS, [], fmt, json_payload=report_json(results))
        return
    width = max(40, min(make_console().size.width, 120))
    page = _Page(width)
    page.text("qmodel validate: the studies' printed numbers against the models")
    page.blank()
    page.text("Scorecard")
    _scorecard_table(page, results)
    page.text(SCORECARD_KEY, indent=2)
    page.blank()
    page.text(headline(results))
    _by_kind(page, results)
    _misses(page, results)
    page.blank()
    page.text("Verdicts")
    for verdict, meaning in LEGEND:
        page.text(f"{verdict:<13}{meaning}", indent=2, hanging=13)
    page.text(DEVIATION_NOTE, indent=2)
    for study in dict.fromkeys(r.case.study for r in results):
        page.blank()
        page.text(study)
        _study_table(page, [r for r in results if r.case.study == study])
    _explanations(page, results)
    sys.stdout.write("\n".join(page.lines) + "\n")


class ValidationReport(list):
    """The judged cases (:class:`CaseResult`) as Python and notebooks meet them: a list with
    ``to_frame()`` (one row per case, the fields of :data:`FIELDS`) and a compact notebook table under
    the quotable summary, each unexplained miss a warning."""

    def to_frame(self):
        return frames.to_frame([record(result) for result in self], FIELDS)

    def to_json(self) -> dict[str, Any]:
        """The report as ``qmodel validate --format json`` writes it (:func:`report_json`)."""
        return report_json(self)

    def _repr_html_(self) -> str:
        shown = ("casebook", "case", "quantity", "paper", "model", "unit", "deviation", "verdict")
        misses = [f"{r.case.casebook} {r.case.id}: {UNEXPLAINED}" for r in self if not r.explained]
        return frames.html(
            "qmodel validate",
            [record(result) for result in self],
            columns=shown,
            lines=[headline(self)],
            warnings=misses,
        )


def validation_report(names: Sequence[str] = ()) -> ValidationReport:
    """Every case of the named casebooks (all shipped ones if none) judged, as a :class:`ValidationReport`.

    :param names: casebook names (``qmodel validate --list``); none: every shipped casebook.
    :returns: each case judged: the paper's value, the model's, the deviation and the verdict, in the
        case's unit (:class:`ValidationReport`).
    """
    return ValidationReport(run_casebooks(list(names)))
