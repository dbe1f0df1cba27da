"""Plots (``--plot``): matplotlib is a dependency of qmodel, imported only here, when a plot is asked for."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from qmodel.errors import InputError, MissingPackageError
from qmodel.frames import level_text
from qmodel.outfile import check_output_path, claim_output
from qmodel.scenario.result import BREAKDOWN, ScenarioResult
from qmodel.studies.replication import Timeline
from qmodel.units import UNITS, goal_time

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # No install command: the name qmodel on the public package index is another project's.
        raise MissingPackageError(
            "--plot needs matplotlib, a dependency of qmodel that cannot be "
            "imported here: reinstall qmodel from its repository"
        ) from None
    return plt


def check_plot_path(path: str) -> None:
    """Refuse, before any work is done, a plot file whose format matplotlib is not asked for,
    or that cannot be written (a directory, or in a directory that does not exist)."""
    check_output_path("--plot", path)
    if Path(path).suffix.lower() not in (".png", ".svg", ".pdf"):
        raise InputError("--plot", path, "a file name ending in .png, .svg or .pdf")


def plot_timeline(timeline: Timeline, path: str) -> None:
    """Write the replication time-line (write rate, link, backlog) as PNG, SVG or PDF by suffix."""
    check_plot_path(path)
    plt = _pyplot()
    minutes = timeline.times / 60
    figure, (rates, backlog) = plt.subplots(2, 1, sharex=True, figsize=(8, 5.5))
    rates.step(minutes, timeline.write_rate, where="post", label="write rate")
    rates.step(minutes, timeline.bandwidth, where="post", label="link bandwidth")
    rates.set_ylabel("MB/s")
    rates.legend(loc="upper right")
    backlog.plot(minutes, timeline.backlog / 1000, color="tab:red")
    for stop, resume in timeline.suspensions:
        end = resume if resume is not None else timeline.times[-1]
        backlog.axvspan(stop / 60, end / 60, color="tab:red", alpha=0.1)
    backlog.set_ylabel("backlog, GB")
    backlog.set_xlabel("minute (shaded: consistency groups suspended)")
    figure.suptitle("Global Mirror fluid time-line")
    figure.tight_layout()
    _save(figure, path, plt)


def plot_sweep(
    curves: dict[str, tuple],
    x_label: str,
    y_label: str,
    title: str,
    fixed: str,
    path: str,
    knees: dict[str, tuple[float, float, str]] | None = None,
) -> None:
    """Write outputs against one input (a response-time knee, say) to PNG, SVG or PDF.

    ``curves`` maps a label to its (x, y) points; ``fixed`` names the inputs
    held fixed, shown under the title so the plot says what it is of; ``knees``
    maps a curve's label to its knee (x, y, the words to label it with), marked on the curve.
    """
    check_plot_path(path)
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for label, (x, y) in curves.items():
        (line,) = axes.plot(x, y, marker="o", label=label)
        if knees and label in knees:
            knee_x, knee_y, words = knees[label]
            axes.plot([knee_x], [knee_y], marker="o", markersize=13, fillstyle="none", color=line.get_color())
            axes.annotate(
                words,
                (knee_x, knee_y),
                textcoords="offset points",
                xytext=(-10, 12),
                ha="right",
                fontsize=8,
                color=line.get_color(),
            )
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    heading = textwrap.fill(title, 80) + (f"\n{textwrap.fill(fixed, 100)}" if fixed else "")
    axes.set_title(heading, fontsize=9)
    if len(curves) > 1:
        axes.legend(fontsize=8)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    _save(figure, path, plt)


def _save(figure, path: str, plt) -> None:
    """Save and close a figure, written whole (:mod:`qmodel.outfile`); a file that cannot be written is an
    InputError, not a traceback."""
    try:
        with claim_output("--plot", path).open() as handle:  # written whole, or the old file kept
            figure.savefig(handle, format=Path(path).suffix.lower().lstrip("."))
    finally:
        plt.close(figure)


def plot_mva(populations, throughput, response_time, bounds, time_unit: str, path: str) -> None:
    """Write X(N) [1/s] and R(N) [time_unit] from MVA with their optimistic and pessimistic bounds.

    ``response_time`` and the bounds are in seconds (as qmodel.networks gives them); R is drawn in
    ``time_unit``. PNG, SVG or PDF by the file's suffix.
    """
    check_plot_path(path)
    plt = _pyplot()
    scale = UNITS[time_unit].to_si
    figure, (x_axes, r_axes) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    x_axes.plot(populations, throughput, label="exact MVA")
    x_axes.plot(populations, bounds.throughput_upper, "--", label="upper bound")
    x_axes.plot(populations, bounds.throughput_lower, ":", label="lower bound")
    x_axes.set_ylabel("throughput X [1/s]")
    x_axes.legend(loc="lower right")
    r_axes.plot(populations, response_time / scale, label="exact MVA")
    r_axes.plot(populations, bounds.response_lower / scale, "--", label="lower bound")
    r_axes.plot(populations, bounds.response_upper / scale, ":", label="upper bound")
    r_axes.set_ylabel(f"response time R [{time_unit}]")
    r_axes.set_xlabel("population N")
    r_axes.legend(loc="upper left")
    for axes in (x_axes, r_axes):
        axes.grid(alpha=0.3)
    figure.suptitle(f"Closed network: bottleneck {bounds.bottleneck}, N* = {bounds.knee:.3g}")
    figure.tight_layout()
    _save(figure, path, plt)


def plot_scenario(
    result: ScenarioResult, path: str, marks: dict[str, float] | None = None, today: float | None = None
) -> None:
    """Write a scenario swept over distance (PNG, SVG or PDF by suffix): :func:`scenario_figure`."""
    check_plot_path(path)
    plt = _pyplot()
    _save(scenario_figure(result, plt, marks, today), path, plt)


PANELS_A_ROW = 3  # members side by side in a scenario's figure; more go on the rows below


def scenario_figure(
    result: ScenarioResult, plt, marks: dict[str, float] | None = None, today: float | None = None
) -> Figure:
    """One column per member, at most :data:`PANELS_A_ROW` a row (the members after them in the rows below,
    each panel as wide as in a sysplex of three: trial 8, P12), distance (km) across, every member's
    panels on one scale. Above: the mean response time (ms), its breakdown
    stacked. Below: the share of transactions within the goal time (%), the goal share drawn across it;
    the WLM goal is a percentile goal, so it is judged on that share, never on the mean. In both panels
    a line marks the last plotted distance to which the goal holds (:func:`goal_held_to`), and the
    distances with no answer (thrashing, or volumes that cannot carry their other work) are marked.
    Where the answer has a band, the response time and the share carry it shaded at its level
    (:meth:`ScenarioResult.band_values`), and the share panel the probability that every member meets the
    goal at each distance. ``marks``: a
    label for each distance (km) to mark across every panel, the goal seek's answer and its band's ends
    (``--max-distance --plot``), the first solid and the others dashed, 0 km included; ``today``: the
    distance (km) the file was measured at, marked "today: X km" across every panel where above 0."""
    order = np.argsort(result.distances, kind="stable")  # distances may be typed in any order
    km = result.distances[order] / 1e3
    goal_met = result.goal_met[:, order]
    no_answer = {label: where[order] for label, where in _no_answer(result).items()}
    goal_within = "{:g} {}".format(*goal_time(result.goal_time))
    bands = result.band_values()
    band_label = "" if result.band is None else f"{level_text(result.band.level)} band"
    columns = min(len(result.members), PANELS_A_ROW)
    blocks = -(-len(result.members) // columns)  # rows of members, each a response and a share panel
    figure, panels = plt.subplots(
        2 * blocks,
        columns,
        sharex=True,
        squeeze=False,
        figsize=(4.5 * columns + 2.5, 7 * blocks),
        gridspec_kw={"height_ratios": (3, 2) * blocks},
    )
    for unused in range(len(result.members), blocks * columns):
        for axes in panels[2 * (unused // columns) : 2 * (unused // columns) + 2, unused % columns]:
            axes.set_visible(False)
    placed = [
        panels[2 * (m // columns) : 2 * (m // columns) + 2, m % columns] for m in range(len(result.members))
    ]
    for time_axes, share_axes in placed[1:]:  # one scale for every member, as one row had
        time_axes.sharey(placed[0][0])
        share_axes.sharey(placed[0][1])
    fills: list[tuple[Axes, np.ndarray, np.ndarray]] = []  # each band, drawn once the scales are known
    for m, member in enumerate(result.members):
        time_axes, share_axes = placed[m]
        time_axes.stackplot(
            km, [result.breakdown[name][m, order] * 1e3 for name in BREAKDOWN], labels=BREAKDOWN, alpha=0.8
        )
        time_axes.plot(km, result.response_time[m, order] * 1e3, color="black", label="mean response time")
        for axes, name in ((time_axes, "response_time[ms]"), (share_axes, "share_within_goal[%]")):
            if name in bands:
                low, high = bands[name]
                fills.append((axes, low[m, order], high[m, order]))
        share_axes.plot(
            km,
            result.share_within_goal[m, order] * 100,
            color="black",
            marker=".",
            label=f"transactions within {goal_within}",
        )
        share_axes.axhline(
            result.goal_share * 100,
            color="tab:red",
            linestyle="--",
            label=f"goal: {result.goal_share:.0%} within {goal_within}",
        )
        if result.band is not None:
            share_axes.plot(
                km,
                result.band.goal_probability[order] * 100,
                color="tab:blue",
                linestyle="-.",
                label="probability every member meets the goal [%]",
            )
        held = goal_held_to(km, goal_met[m])
        for axes in (time_axes, share_axes):
            if held is not None and held < km[-1]:
                axes.axvline(
                    held,
                    color="tab:green",
                    linestyle=":",
                    linewidth=2,
                    label="goal holds to here (last distance plotted)",
                )
            for label, where in no_answer.items():
                for distance in km[where]:
                    axes.axvline(distance, color="tab:red", alpha=0.3, label=label)
            for index, (label, distance) in enumerate((marks or {}).items()):
                axes.axvline(
                    distance,
                    color="tab:blue",
                    linestyle="-" if index == 0 else "--",
                    linewidth=3 if distance == 0 else 1.5,  # at 0 km half the line is the axis's edge
                    label=label,
                )
            if today is not None and today > 0:
                axes.axvline(
                    today, color="tab:purple", linestyle="-.", linewidth=1.5, label=f"today: {today:g} km"
                )
            axes.grid(alpha=0.3)
        time_axes.set_title(member)
        share_axes.set_title(f"goal {_goal_text(km, held)}", fontsize=9)
        share_axes.set_xlabel("distance between sites [km]")
        share_axes.tick_params(labelbottom=True)  # each member's distances read under its own panels
    for block in range(blocks):
        panels[2 * block, 0].set_ylabel("mean response time per transaction [ms]")
        panels[2 * block + 1, 0].set_ylabel(f"transactions within {goal_within} [%]")
    placed[0][1].set_ylim(0, 100)
    _draw_bands(km, fills, band_label)
    for kind in (0, 1):  # one legend for each kind of panel, beside the first row's, each label once
        entries = {
            label: handle
            for pair in placed
            for handle, label in zip(*pair[kind].get_legend_handles_labels(), strict=True)
        }
        panels[kind, -1].legend(
            entries.values(), entries.keys(), fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1)
        )
    every_member = _goal_text(km, goal_held_to(km, np.asarray(goal_met.all(axis=0))))
    figure.suptitle(
        f"{textwrap.fill(result.title, 100)}\nWLM goal {result.goal_share:.0%} within "
        f"{goal_within}, every member, at the distances plotted: {every_member}",
        fontsize=10,
    )
    figure.tight_layout()
    return figure


def _draw_bands(km: np.ndarray, fills: list[tuple[Axes, np.ndarray, np.ndarray]], label: str) -> None:
    """Shade each band (its panel, its low and high ends over the distances ``km``), its scale first made to
    hold every band's finite ends; an end that is open (NaN: some of the band's points have no answer
    there, a response time unbounded above, a share with none below) shaded to the panel's edge, not
    dropped (trial 9, Q12: the response band vanished where its high end had no value)."""
    for axes, low, high in fills:  # the scale holds the band's finite ends (a shared scale: every panel)
        bottom, top = axes.get_ylim()
        finite = np.concatenate([low[np.isfinite(low)], high[np.isfinite(high)]])
        if finite.size:
            axes.set_ylim(min(bottom, float(finite.min())), max(top, float(finite.max())))
    for axes, low, high in fills:
        bottom, top = axes.get_ylim()
        answered = np.isfinite(low) | np.isfinite(high)
        axes.fill_between(
            km,
            np.where(np.isnan(low) & answered, bottom, low),
            np.where(np.isnan(high) & answered, top, high),
            color="tab:gray",
            alpha=0.35,
            linewidth=0,
            zorder=3,
            label=label,
        )
        axes.set_ylim(bottom, top)


def goal_held_to(km: np.ndarray, goal_met: np.ndarray) -> float | None:
    """The largest of the distances ``km`` (ascending) to which the goal holds (``goal_met``, bool) at
    every one from the first: None where it fails at the first. Read from the sweep drawn, not searched:
    the goal seek (``--max-distance``) narrows the answer between this distance and the next."""
    missed = np.flatnonzero(~goal_met)
    last = km.size - 1 if missed.size == 0 else missed[0] - 1
    return None if last < 0 else float(km[last])


def _goal_text(km, held: float | None) -> str:
    if held is None:
        return f"missed at {km[0]:g} km already"
    if held == km[-1]:
        return f"holds at every distance, to {held:g} km"
    return f"holds to {held:g} km, missed at {km[km > held][0]:g} km"


def _no_answer(result: ScenarioResult) -> dict[str, np.ndarray]:
    """The distances (D,) bool with no response time, by why: volumes saturated, else lock contention."""
    causes = {
        "lock contention thrashes: no answer": result.lock_thrashing,
        "volumes cannot carry their other work: no answer": result.disk_saturated,
    }
    return {label: where for label, where in causes.items() if where.any()}


# where a deviation past the plot's edge is drawn (in tolerances), as a triangle pointing outward
_VALIDATION_EDGE = 5.0
_VERDICT_STYLE = {
    "ok": ("tab:green", "o"),
    "paper-slip": ("tab:blue", "s"),
    "inconsistent": ("tab:gray", "D"),
    "miss": ("tab:red", "X"),
}
_VERDICT_LABEL = {
    "ok": "ok",
    "paper-slip": "paper-slip (against the corrected value)",
    "inconsistent": "inconsistent (printed values disagree)",
    "miss": "miss",
}


def in_tolerances(result) -> float:
    """A case's deviation from the printed value in units of its tolerance (model − paper over the
    tolerance, relative or absolute as the case says), for a paper-slip from the corrected value the
    model matches: within ±1 the model agrees; a printed range with no tolerance is 0 inside and ±inf
    outside."""
    deviation, case = result.deviation, result.case
    if result.verdict == "paper-slip":
        deviation = result.computed - case.recomputed
        deviation = deviation / abs(case.recomputed) if case.relative and case.recomputed else deviation
    if case.tolerance > 0:
        return deviation / case.tolerance
    return 0.0 if deviation == 0 else float(np.copysign(np.inf, deviation))


def plot_validation(results, path: str) -> None:
    """Write the validation at a glance (PNG, SVG or PDF): one row per study, each printed number the
    model predicts a point at its deviation in tolerances (:func:`in_tolerances`), coloured by verdict;
    the band ±1 is agreement, a miss lies outside it, and a deviation past ±5 tolerances sits at the edge
    as a triangle. Calibrated rows (fitted, not predicted) are left out; each study's agreement, as the
    scorecard gives it, stands at the right."""
    from qmodel.validation.score import percent, scorecard

    check_plot_path(path)
    plt = _pyplot()
    scores = scorecard(results)
    studies = [score.study for score in scores[:-1]]
    figure, axes = plt.subplots(figsize=(10, 1.1 * len(studies) + 1.8))
    axes.axvspan(-1, 1, color="tab:green", alpha=0.12, label="within tolerance (agreement)")
    axes.axvline(0, color="tab:green", linewidth=0.8)
    rng = np.random.default_rng(0)  # a fixed spread of the points within a row, so the picture repeats
    for row, study in enumerate(studies):
        for result in (r for r in results if r.case.casebook == study and r.verdict in _VERDICT_STYLE):
            z = in_tolerances(result)
            clipped = abs(z) > _VALIDATION_EDGE
            colour, marker = _VERDICT_STYLE[result.verdict]
            shape = (">" if z > 0 else "<") if clipped else marker
            axes.scatter(
                np.clip(z, -_VALIDATION_EDGE, _VALIDATION_EDGE),
                row + rng.uniform(-0.3, 0.3),
                color=colour,
                marker=shape,
                s=22,
                alpha=0.75,
                zorder=3,
            )
    for row, score in enumerate(scores[:-1]):
        axes.annotate(
            f"{percent(score.agreement)} of {score.judged}",
            (1.01, row),
            xycoords=("axes fraction", "data"),
            va="center",
            fontsize=9,
        )
    axes.set_yticks(range(len(studies)), studies, fontsize=9)
    axes.invert_yaxis()
    axes.set_xlim(-_VALIDATION_EDGE - 0.4, _VALIDATION_EDGE + 0.4)
    axes.set_xlabel(f"model − paper, in tolerances (past ±{_VALIDATION_EDGE:g}: at the edge, ▶ or ◀)")
    axes.set_title(
        "Each printed number the models predict, against the model: inside the band the model "
        f"agrees\n(agreement at the right; all studies: {percent(scores[-1].agreement)} of "
        f"{scores[-1].judged}; calibrated rows left out)",
        fontsize=10,
    )
    axes.grid(axis="x", alpha=0.3)
    handles = [
        axes.scatter([], [], color=colour, marker=marker, label=_VERDICT_LABEL[verdict])
        for verdict, (colour, marker) in _VERDICT_STYLE.items()
    ]
    axes.legend(
        handles=[*axes.get_legend_handles_labels()[0][:1], *handles],
        fontsize=8,
        ncol=5,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12),
    )
    figure.tight_layout()
    _save(figure, path, plt)
