"""Casebooks: the studies' printed numbers as validation cases, and ``qmodel validate``.

A casebook (``casebooks/<study>.toml``) names its study and holds ``[[case]]``
tables::

    [[case]]
    id = "env1-tpno-rate"
    quantity = "throughput_law.throughput"     # catalogue entry.output, or registry function.output
    citation = "Environment 1 Results, TPNO table, row Number, column non-pprc"
    inputs = { completions = 6882, observation_time = "300s" }
    paper = 22.94                              # as printed; [low, high] for a printed range
    unit = "1/s"                               # unit of the printed value (default: the output's)
    tolerance = { relative = 0.001 }           # or { absolute = 0.05 }
    slip = "..."; recomputed = 90.56           # optional: the study's arithmetic is wrong
    calibrated = "..."                         # optional: the row fitted a parameter

A quantity names a catalogue entry or a function of :mod:`qmodel.registry`,
and an output; nothing else is imported or run (a case naming anything else is
refused when the casebook loads). Inputs are written in qmodel's unit dialect
(``"70km"``, ``"4ms"``, ``"95%"``, or bare numbers in the input's unit).

Verdicts: ``ok`` the model is within tolerance of the printed value;
``paper-slip`` it is not, but it matches the recomputed value of a declared
slip; ``calibrated`` within tolerance on a row used for fitting (not a
prediction); ``miss`` anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.loader import get_formula, load_catalogue
from qmodel.errors import CatalogueError, InputError
from qmodel.output import console as make_console
from qmodel.output import format_number, render
from qmodel.registry import REGISTRY, call
from qmodel.tomlread import read_toml
from qmodel.units import UNITS, parse_value, with_unit

VERDICTS = ("ok", "paper-slip", "calibrated", "miss")


@dataclass(frozen=True)
class Case:
    """One printed number of a study and how to compute it."""

    casebook: str
    study: str
    id: str
    quantity: str
    citation: str
    inputs: dict[str, Any]
    paper: tuple[float, float]  # (low, high); equal for a single printed value
    unit: str
    tolerance: float
    relative: bool
    slip: str = ""
    recomputed: float | None = None
    calibrated: str = ""
    note: str = ""


@dataclass(frozen=True)
class CaseResult:
    """A case with the model's value, the deviation from the paper and the verdict."""

    case: Case
    computed: float  # the model's value, in the case's unit
    deviation: float  # relative (fraction) or absolute, as the tolerance is
    verdict: str
    remark: str


def _within(value: float, low: float, high: float, tolerance: float, relative: bool) -> float:
    """Deviation of ``value`` outside [low, high], relative to the nearer end or absolute."""
    if low <= value <= high:
        return 0.0
    end = low if value < low else high
    difference = value - end
    return difference / abs(end) if relative and end != 0 else difference


def _case(table: dict[str, Any], casebook: str, study: str) -> Case:
    case_id = table.get("id", "?")
    where = f"{casebook}: case {case_id!r}"
    for key in ("id", "quantity", "citation", "paper", "tolerance"):
        if key not in table:
            raise CatalogueError(f"{where}: missing {key!r}")
    paper = table["paper"]
    low, high = (paper, paper) if isinstance(paper, (int, float)) else tuple(paper)
    tolerance = table["tolerance"]
    if not isinstance(tolerance, dict) or len(tolerance) != 1 or not (
        set(tolerance) <= {"relative", "absolute"}
    ):
        raise CatalogueError(f"{where}: tolerance must be {{ relative = x }} or {{ absolute = x }}")
    if ("slip" in table) != ("recomputed" in table):
        raise CatalogueError(f"{where}: 'slip' and 'recomputed' go together")
    default_unit = _default_unit(table["quantity"], where)
    unit = table.get("unit") or default_unit
    if unit not in UNITS:
        raise CatalogueError(f"{where}: unknown unit {unit!r}")
    if UNITS[unit].dimension != UNITS[default_unit].dimension:
        raise CatalogueError(f"{where}: unit {unit!r} is not a {UNITS[default_unit].dimension} unit "
                             f"like the output's {default_unit!r}")
    return Case(
        casebook=casebook, study=study, id=case_id, quantity=table["quantity"], citation=table["citation"],
        inputs=dict(table.get("inputs", {})), paper=(float(low), float(high)), unit=unit,
        tolerance=float(next(iter(tolerance.values()))), relative="relative" in tolerance,
        slip=table.get("slip", ""), recomputed=table.get("recomputed"),
        calibrated=table.get("calibrated", ""), note=table.get("note", ""),
    )


def _output_units(entry: str, where: str) -> dict[str, str]:
    """The outputs of a quantity's entry (catalogue first, then registry) with their units."""
    if entry in load_catalogue():
        return {output.name: output.unit for output in get_formula(entry).outputs}
    if entry in REGISTRY:
        return REGISTRY[entry].outputs
    raise CatalogueError(f"{where}: unknown formula {entry!r}: neither a catalogue entry nor a registered "
                         "model function (qmodel formula list; qmodel.registry)")


def _default_unit(quantity: str, where: str) -> str:
    entry, _, output = quantity.partition(".")
    units = _output_units(entry, where)
    if output not in units:
        raise CatalogueError(f"{where}: {entry!r} has no output {output!r}; outputs: {', '.join(units)}")
    return units[output]


def load_casebook(path: Path, text: str | None = None) -> list[Case]:
    """The cases of one casebook file; CatalogueError names the file and case."""
    data = read_toml(path, text)
    for key in ("study", "title"):
        if key not in data:
            raise CatalogueError(f"{path.name}: missing {key!r}")
    study = f"{data['title']} ({data['study']})"
    cases = [_case(table, path.stem, study) for table in data.get("case", [])]
    ids = [case.id for case in cases]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise CatalogueError(f"{path.name}: duplicate case id(s) {repeated}")
    if not cases:
        raise CatalogueError(f"{path.name}: no [[case]] entries")
    return cases


def shipped_casebooks() -> dict[str, Path]:
    """The shipped casebooks by name (file stem)."""
    folder = resources.files("qmodel.casebooks")
    return {Path(p.name).stem: Path(str(p)) for p in folder.iterdir() if p.name.endswith(".toml")}


def compute(case: Case) -> float:
    """The model's value for a case, in the case's unit."""
    entry_id, _, output = case.quantity.partition(".")
    if entry_id not in load_catalogue():
        outputs = call(entry_id, case.inputs, f"{case.casebook}: case {case.id!r}")
        return float(np.asarray(outputs[output])) / UNITS[case.unit].to_si
    formula = get_formula(entry_id)
    inputs = {}
    for name, value in case.inputs.items():
        if name not in formula.symbols:
            raise CatalogueError(f"{case.casebook}: case {case.id!r}: {name!r} is not an input "
                                 f"of {entry_id}")
        inputs[name] = parse_value(name, value, formula.symbols[name].unit)
    result = calc(entry_id, **inputs)
    model_unit = UNITS[formula.output(output).unit]
    return float(result.outputs[output]) * model_unit.to_si / UNITS[case.unit].to_si


def judge(case: Case) -> CaseResult:
    """Compute a case and give its verdict."""
    try:
        computed = compute(case)
    except InputError as error:
        return CaseResult(case, float("nan"), float("nan"), "miss", f"model refused: {error}")
    low, high = case.paper
    deviation = _within(computed, low, high, case.tolerance, case.relative)
    matches_paper = abs(deviation) <= case.tolerance
    if case.recomputed is not None:
        slip_deviation = _within(computed, case.recomputed, case.recomputed, case.tolerance,
                                 case.relative)
        if abs(slip_deviation) <= case.tolerance and not matches_paper:
            return CaseResult(case, computed, deviation, "paper-slip",
                              f"{case.slip} (recomputed {case.recomputed:g})")
        remark = ("model agrees with the printed value the casebook calls a slip"
                  if matches_paper else "model matches neither the printed nor the recomputed value")
        return CaseResult(case, computed, deviation, "miss", remark)
    if not matches_paper:
        return CaseResult(case, computed, deviation, "miss", case.note or "outside tolerance")
    if case.calibrated:
        return CaseResult(case, computed, deviation, "calibrated", case.calibrated)
    return CaseResult(case, computed, deviation, "ok", case.note)


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
            raise InputError("casebook", name, "a file or one of " + ", ".join(sorted(shipped)),
                             reason="no such casebook")
    return [judge(case) for path in paths for case in load_casebook(path)]


def _paper_text(case: Case) -> str:
    low, high = (format_number(end) for end in case.paper)
    return low if low == high else f"{low} – {high}"


def _deviation_text(result: CaseResult) -> str:
    if np.isnan(result.deviation):
        return "n/a"
    if result.case.relative:
        return f"{result.deviation * 100:+.2f}%"
    return with_unit(f"{result.deviation:+.4g}", result.case.unit)


def report(results: list[CaseResult], fmt: str) -> None:
    """Print the paper-vs-model comparison with totals by verdict.

    As a table: one table per study, then the totals and the remarks on every
    case that is not plainly ``ok``. As JSON or CSV: one record per case with
    its citation.
    """
    totals = {verdict: sum(r.verdict == verdict for r in results) for verdict in VERDICTS}
    summary = f"{len(results)} cases: " + ", ".join(f"{n} {v}" for v, n in totals.items())
    columns = ["case", "quantity", "paper", "model", "unit", "deviation", "verdict"]

    def row(r: CaseResult) -> list[str]:
        return [r.case.id, r.case.quantity, _paper_text(r.case), format_number(r.computed), r.case.unit,
                _deviation_text(r), r.verdict]

    if fmt == "csv":
        render(["casebook", *columns, "citation", "remark"],
               [[r.case.casebook, *row(r), r.case.citation, r.remark] for r in results], fmt)
        return
    if fmt == "json":
        cases = [{"casebook": r.case.casebook, "id": r.case.id, "quantity": r.case.quantity,
                  "citation": r.case.citation, "paper": list(r.case.paper), "unit": r.case.unit,
                  "model": r.computed, "deviation": r.deviation, "tolerance": r.case.tolerance,
                  "tolerance_kind": "relative" if r.case.relative else "absolute",
                  "verdict": r.verdict, "remark": r.remark} for r in results]
        render(columns, [], fmt, json_payload={"cases": cases, "totals": totals})
        return
    for study in dict.fromkeys(r.case.study for r in results):
        render(columns, [row(r) for r in results if r.case.study == study], fmt, title=study)
    console = make_console(markup=True)
    console.print(f"[bold]{summary}[/bold]")
    remarks: dict[tuple[str, str], list[str]] = {}
    for r in results:
        if r.verdict != "ok" and r.remark:
            remarks.setdefault((r.verdict, r.remark), []).append(r.case.id)
    for (verdict, remark), case_ids in remarks.items():
        console.print(f"\n[bold]{verdict}[/bold]: {', '.join(case_ids)}", highlight=False)
        console.print(f"  {remark}", markup=False)
