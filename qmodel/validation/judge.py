"""Judge casebook cases: the model's value against the printed one, and a verdict.

Verdicts (the report prints this legend):

- ``ok``: the model is within tolerance of the printed value (inside a printed range);
- ``paper-slip``: it is not, but it matches the corrected value of an arithmetic slip the
  casebook declares (the study's own numbers, recomputed); or the slip is in a printed input,
  the case takes it corrected (its ``slip`` gives both) and the model matches the printed value;
- ``inconsistent``: it is not, and the casebook shows that the study's printed values
  disagree with each other here: it names two or more printed values with their citations
  and the arithmetic by which they cannot all hold, whatever the model. Not agreement:
  counted on its own line. A model assumption that fails is a ``miss``, not this;
- ``calibrated``: a row used to fit a parameter (within its tolerance or not: the residual): not a prediction,
  never counted as agreement;
- ``miss``: anything else: the model does not reproduce the printed value. A miss the
  casebook explains (its note gives the numbers) is a known model limit; a miss without
  an explanation, or a model that refuses its inputs, is a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.loader import get_formula, load_catalogue
from qmodel.catalogue.registry import call
from qmodel.errors import CatalogueError, InputError
from qmodel.units import UNITS, parse_value
from qmodel.validation.casebook import Case, load_casebook, shipped_casebooks

VERDICTS = ("ok", "paper-slip", "inconsistent", "calibrated", "miss")
UNEXPLAINED = "outside tolerance, and the casebook does not say why"


@dataclass(frozen=True)
class CaseResult:
    """A case with the model's value, the deviation from the paper and the verdict."""

    case: Case
    computed: float  # the model's value, in the case's unit; NaN when the model refused
    deviation: float  # relative (fraction) or absolute, as the tolerance is; 0 inside a printed range
    verdict: str
    remark: str
    explained: bool = True  # False for a miss the casebook does not explain, or a refused model
    predicts: tuple[str, ...] = ()  # for a calibrated case: the cases that use its value


def within(value: float, low: float, high: float, relative: bool) -> float:
    """Deviation of ``value`` outside [low, high], relative to the nearer end or absolute."""
    if low <= value <= high:
        return 0.0
    end = low if value < low else high
    difference = value - end
    return difference / abs(end) if relative and end != 0 else difference


def _typed(value: Any, computed: dict[str, float], cases: dict[str, Case]) -> Any:
    """An input as typed text: a ``{ case = id }`` reference becomes that case's model value."""
    if isinstance(value, dict) and "case" in value:
        source = cases[value["case"]]
        return f"{computed[source.id]!r} {'' if source.unit == '1' else source.unit}".rstrip()
    return value


def compute(case: Case, inputs: dict[str, Any] | None = None, target: dict[str, Any] | None = None) -> float:
    """The model's value for a case, in the case's unit (``inputs`` and ``target`` with references resolved).

    A case with a target gives the input its quantity names at which the target's output reaches
    the target's value (the inverse solver, :func:`qmodel.catalogue.inverse.solve`).
    """
    inputs = case.inputs if inputs is None else inputs
    target = case.target if target is None else target
    entry_id, _, output = case.quantity.partition(".")
    if entry_id not in load_catalogue():
        outputs = call(entry_id, inputs, f"{case.casebook}: case {case.id!r}")
        return float(np.asarray(outputs[output])) / UNITS[case.unit].to_si
    formula = get_formula(entry_id)
    values = {}
    for name, value in inputs.items():
        if name not in formula.symbols:
            raise CatalogueError(f"{case.casebook}: case {case.id!r}: {name!r} is not an input of {entry_id}")
        values[name] = parse_value(name, value, formula.symbols[name].unit)
    if target:
        from qmodel.catalogue.inverse import solve

        ((reached, value),) = target.items()
        solution = solve(
            formula, reached, parse_value(reached, value, formula.output(reached).unit), output, values
        )
        computed, model_unit = float(solution.value), formula.symbols[output].unit
    else:
        computed = float(calc(entry_id, "display", **values).outputs[output])
        model_unit = formula.output(output).unit
    return computed * UNITS[model_unit].to_si / UNITS[case.unit].to_si


def verdict(case: Case, computed: float) -> tuple[str, float, str, bool]:
    if case.fitted:  # a calibration that fits a parameter: nothing printed to compare
        return "calibrated", float("nan"), case.calibrated, True
    low, high = case.printed_range
    deviation = within(computed, low, high, case.relative)
    matches_paper = abs(deviation) <= case.tolerance
    if case.recomputed is not None:
        slip_deviation = within(computed, case.recomputed, case.recomputed, case.relative)
        # the printed value stands where the slip is in an input the case corrects (its slip says which)
        corrected_input = within(case.recomputed, low, high, case.relative) == 0
        if abs(slip_deviation) <= case.tolerance and (corrected_input or not matches_paper):
            return "paper-slip", deviation, f"{case.slip} (recomputed {case.recomputed:g})", True
        remark = (
            "model agrees with the printed value the casebook calls a slip"
            if matches_paper
            else "model matches neither the printed nor the recomputed value"
        )
        return "miss", deviation, remark, False
    if case.inconsistent:
        if matches_paper:
            remark = "model agrees with the printed value the casebook calls inconsistent"
            return "miss", deviation, remark, False
        return "inconsistent", deviation, case.inconsistent, True
    if case.calibrated:  # a fitted row is never a prediction, whether or not the fit reaches it
        if matches_paper:
            return "calibrated", deviation, case.calibrated, True
        residual = f"{case.calibrated}; the fit leaves this row outside its tolerance"
        return "calibrated", deviation, f"{residual}: {case.note}" if case.note else residual, True
    if not matches_paper:
        return "miss", deviation, case.note or UNEXPLAINED, bool(case.note)
    return "ok", deviation, case.note, True


def judge_all(cases: list[Case]) -> list[CaseResult]:
    """Compute every case (a case using another's value after it) and give each its verdict."""
    by_id = {case.id: case for case in cases}
    computed: dict[str, float] = {}
    refused: dict[str, str] = {}
    visiting: set[str] = set()

    def evaluate(case: Case) -> None:
        if case.id in computed:
            return
        if case.id in visiting:
            raise CatalogueError(f"{case.casebook}: case {case.id!r} uses its own value (a cycle of cases)")
        visiting.add(case.id)
        for other in case.uses_values:
            evaluate(by_id[other])
        visiting.discard(case.id)
        failed = [other for other in case.uses_values if other in refused]
        if failed:
            computed[case.id] = float("nan")
            refused[case.id] = f"uses case {failed[0]!r}, which the model refused"
            return
        try:
            inputs = {name: _typed(value, computed, by_id) for name, value in case.inputs.items()}
            target = {name: _typed(value, computed, by_id) for name, value in case.target.items()}
            computed[case.id] = compute(case, inputs, target)
        except InputError as error:
            computed[case.id] = float("nan")
            refused[case.id] = f"model refused: {error}"

    for case in cases:
        evaluate(case)
    dependents: dict[str, list[str]] = {}  # the predictions resting on each case: calibrated rows are not
    for case in cases:
        for other in case.depends_on if not case.calibrated else ():
            dependents.setdefault(other, []).append(case.id)
    results = []
    for case in cases:
        value = computed[case.id]
        if case.id in refused:
            results.append(CaseResult(case, value, float("nan"), "miss", refused[case.id], explained=False))
            continue
        judged, deviation, remark, explained = verdict(case, value)
        predicts = tuple(dependents.get(case.id, ()))
        results.append(CaseResult(case, value, deviation, judged, remark, explained, predicts))
    return results


def run_casebooks(names: list[str]) -> list[CaseResult]:
    """Judge every case of the named casebooks (names or paths; all shipped ones if none)."""
    shipped = shipped_casebooks()
    paths = []
    for name in names or sorted(shipped):
        if name in shipped:
            paths.append(shipped[name])
        elif Path(name).is_file():
            paths.append(Path(name))
        else:
            raise InputError(
                "casebook", name, "a file or one of " + ", ".join(sorted(shipped)), reason="no such casebook"
            )
    return [result for path in paths for result in judge_all(load_casebook(path))]
