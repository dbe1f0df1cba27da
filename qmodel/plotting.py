"""Optional plots (extra ``plot``: ``pip install '.[plot]'``); matplotlib is imported only here."""

from __future__ import annotations

import textwrap
from pathlib import Path

from qmodel.errors import InputError, MissingPackageError
from qmodel.output import check_output_path
from qmodel.studies.replication import Timeline


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingPackageError("--plot needs matplotlib, which is not installed: "
                                  "pip install 'qmodel[plot]'") from None
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


def plot_sweep(curves: dict[str, tuple], x_label: str, y_label: str, title: str, fixed: str,
               path: str) -> None:
    """Write outputs against one input (a response-time knee, say) to PNG, SVG or PDF.

    ``curves`` maps a label to its (x, y) points; ``fixed`` names the inputs
    held fixed, shown under the title so the plot says what it is of.
    """
    check_plot_path(path)
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for label, (x, y) in curves.items():
        axes.plot(x, y, marker="o", label=label)
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
    """Save and close a figure; a file that cannot be written is an InputError, not a traceback."""
    try:
        figure.savefig(path)
    except OSError as error:
        raise InputError("--plot", path, "a file that can be written",
                         reason=error.strerror or "cannot write") from None
    finally:
        plt.close(figure)


def plot_mva(populations, throughput, response_time, bounds, time_unit: str, path: str) -> None:
    """Write X(N) [1/s] and R(N) [time_unit] from MVA with their optimistic and pessimistic bounds.

    ``response_time`` and the bounds are in seconds (as qmodel.networks gives them); R is drawn in
    ``time_unit``. PNG, SVG or PDF by the file's suffix.
    """
    from qmodel.units import UNITS

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
    figure.savefig(path)
    plt.close(figure)


def plot_scenario(result, path: str) -> None:
    """Response time against distance per member, its breakdown stacked, and the goal line (PNG/SVG/PDF)."""
    from qmodel.scenario.result import BREAKDOWN

    check_plot_path(path)
    plt = _pyplot()
    km = result.distances / 1e3
    figure, panels = plt.subplots(1, len(result.members), sharey=True, figsize=(5 * len(result.members), 4.5),
                                  squeeze=False)
    for m, (axes, member) in enumerate(zip(panels[0], result.members, strict=True)):
        layers = [result.breakdown[name][m] * 1e3 for name in BREAKDOWN]
        axes.stackplot(km, layers, labels=BREAKDOWN, alpha=0.8)
        axes.plot(km, result.response_time[m] * 1e3, color="black", label="response time")
        axes.axhline(result.goal_time * 1e3, color="tab:red", linestyle="--",
                     label=f"goal: {result.goal_share:.0%} within {result.goal_time * 1e3:g} ms")
        for distance in km[result.thrashing]:
            axes.axvline(distance, color="tab:red", alpha=0.3)
        axes.set_title(member)
        axes.set_xlabel("distance between sites [km]")
        axes.grid(alpha=0.3)
    panels[0][0].set_ylabel("response time per transaction [ms]")
    panels[0][-1].legend(fontsize=7, loc="upper left")
    figure.suptitle(textwrap.fill(result.title, 100), fontsize=10)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
