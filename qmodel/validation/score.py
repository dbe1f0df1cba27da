"""The validation score of each study: how many predictions agree within tolerance, and the rest.

One home for the counting that ``qmodel validate`` opens with (text and JSON) and that
the docs carry generated (:mod:`qmodel.validation.scorecard`). Definitions, per study
and for all:

- predictions = cases − calibrated (a calibrated row fits a parameter: not a prediction);
- within tolerance = ok + paper-slip (a slip: the model matches the study's corrected arithmetic);
- inconsistent: the study's printed values disagree with each other; not agreement, and left
  out of the share;
- agreement = within tolerance / (predictions − inconsistent): the headline;
- coverage = the study's model statements encoded (as cases or their inputs) / all of them,
  from the casebook's ``coverage = { statements = N, not_encoded = [...] }``.
"""

from __future__ import annotations

from dataclasses import dataclass

from qmodel.validation.judge import VERDICTS, CaseResult


@dataclass(frozen=True)
class StudyScore:
    """One study's (or all studies') counts."""

    study: str  # the casebook name, or "all"
    cases: int
    ok: int
    slips: int
    inconsistent: int
    misses: int
    calibrated: int
    encoded: int  # model statements encoded; 0 of 0 where the casebook states none
    statements: int

    @property
    def predictions(self) -> int:
        return self.cases - self.calibrated

    @property
    def within(self) -> int:
        """Within tolerance: ok and paper-slip, nothing else."""
        return self.ok + self.slips

    @property
    def judged(self) -> int:
        """The predictions the agreement share is over: neither calibrated nor inconsistent."""
        return self.predictions - self.inconsistent

    @property
    def agreement(self) -> float | None:
        return self.within / self.judged if self.judged else None

    @property
    def coverage(self) -> float | None:
        return self.encoded / self.statements if self.statements else None

    def as_dict(self) -> dict[str, object]:
        """The counts as a record (:func:`qmodel.frames.key`): agreement and coverage as fractions."""
        return {
            "study": self.study,
            "predictions": self.predictions,
            "within_tolerance": self.within,
            "ok": self.ok,
            "paper_slips": self.slips,
            "inconsistent": self.inconsistent,
            "misses": self.misses,
            "calibrated": self.calibrated,
            "judged": self.judged,
            "agreement[ratio]": self.agreement,
            "statements_encoded": self.encoded,
            "statements": self.statements,
            "coverage[ratio]": self.coverage,
        }


def totals(results: list[CaseResult]) -> dict[str, int]:
    """How many results have each verdict (every verdict named, 0 where none)."""
    return {verdict: sum(r.verdict == verdict for r in results) for verdict in VERDICTS}


def _score(study: str, results: list[CaseResult], encoded: int, statements: int) -> StudyScore:
    count = totals(results)
    return StudyScore(
        study,
        len(results),
        count["ok"],
        count["paper-slip"],
        count["inconsistent"],
        count["miss"],
        count["calibrated"],
        encoded,
        statements,
    )


def scorecard(results: list[CaseResult]) -> list[StudyScore]:
    """The score of each casebook in the results, in their order, then of all of them ("all")."""
    scores = []
    for casebook in dict.fromkeys(r.case.casebook for r in results):
        these = [r for r in results if r.case.casebook == casebook]
        encoded, statements = these[0].case.coverage or (0, 0)
        scores.append(_score(casebook, these, encoded, statements))
    scores.append(_score("all", results, sum(s.encoded for s in scores), sum(s.statements for s in scores)))
    return scores


def percent(share: float | None) -> str:
    """A share as a whole percent with one decimal ("84.7%"), "n/a" where there is nothing to share."""
    return "n/a" if share is None else f"{100 * share:.1f}%"


def headline(results: list[CaseResult]) -> str:
    """The sentence a planner can quote: agreement within tolerance over the judged predictions."""
    total = scorecard(results)[-1]
    unexplained = sum(not r.explained for r in results)
    misses = f"{total.misses} miss" + (
        f" ({unexplained} without an explanation or refused by the model)"
        if unexplained
        else ", each explained with its deviation and cause"
    )
    return (
        f"Of {total.judged} predictions judged, {total.within} agree within their tolerance "
        f"({percent(total.agreement)}): {total.ok} ok and {total.slips} matching the study's corrected "
        f"arithmetic (paper-slip); {misses}. Left out of the share: {total.inconsistent} inconsistent "
        f"(the study's printed values disagree with each other) and {total.calibrated} calibrated rows "
        "(fitted, not predicted)."
    )


HEADERS = ("study", "pred", "within", "slip", "incons", "miss", "calib", "cover", "agree")


def rows(results: list[CaseResult]) -> list[tuple[str, ...]]:
    """The scorecard as text cells under :data:`HEADERS`, one row per study and one for all."""
    return [
        (
            s.study,
            *(str(n) for n in (s.predictions, s.within, s.slips, s.inconsistent, s.misses, s.calibrated)),
            percent(s.coverage),
            percent(s.agreement),
        )
        for s in scorecard(results)
    ]
