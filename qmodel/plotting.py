"""Optional plots (extra ``plot``: ``pip install '.[plot]'``); matplotlib is imported only here."""

from __future__ import annotations

import textwrap
from pathlib import Path

from qmodel.errors import InputError, MissingPackageError
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
    """Refuse, before any work is done, a plot file whose format matplotlib is not asked for."""
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
    figure.savefig(path)
    plt.close(figure)


def plot_sweep(x, y, x_label: str, y_label: str, title: str, path: str) -> None:
    """Write one output against one input (a response-time knee, say) to PNG, SVG or PDF."""
    check_plot_path(path)
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.5))
    axes.plot(x, y, marker="o")
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.set_title(textwrap.fill(title, 80), fontsize=9)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
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
