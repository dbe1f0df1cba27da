"""Fluid time-line of asynchronous replication: backlog over time under bursts and link outages.

Writes arrive at a piecewise-constant rate (the steady workload plus any
bursts); the link sends at a piecewise-constant bandwidth (reduced during an
outage). Data not yet sent is the backlog: it grows at write rate − bandwidth
while that is positive and drains at bandwidth − write rate down to zero.
Consistency groups are taken to form only while there is no backlog (the
assumption of the catalogue entries burst_drain and link_outage).

The integration is exact: between consecutive events the rates are constant,
so the backlog is piecewise linear, and the instants where it empties are
added as vertices. Units throughout: MB, MB/s and seconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from qmodel.errors import InputError

_EMPTY = 1e-9  # MB: a backlog below this counts as empty


class Burst(NamedTuple):
    """``size`` MB written at ``rate`` MB/s on top of the steady rate, from ``start`` s."""

    start: float
    size: float
    rate: float


class Outage(NamedTuple):
    """Only ``available_fraction`` of the bandwidth from ``start`` to ``end`` s."""

    start: float
    end: float
    available_fraction: float


class Timeline(NamedTuple):
    """Vertices of the piecewise-linear time-line, and what a planner reads off it.

    ``times`` in s; ``written``, ``sent`` (cumulative) and ``backlog`` in MB at
    each vertex; ``write_rate`` and ``bandwidth`` in MB/s on the segment that
    starts at each vertex. Written = sent + backlog at every vertex.
    """

    times: np.ndarray
    written: np.ndarray
    sent: np.ndarray
    backlog: np.ndarray
    write_rate: np.ndarray
    bandwidth: np.ndarray

    def at(self, times) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(written, sent, backlog) in MB at the given times (s), by exact interpolation."""
        return tuple(
            np.interp(times, self.times, series) for series in (self.written, self.sent, self.backlog)
        )

    @property
    def peak_backlog(self) -> float:
        """Largest backlog, MB."""
        return float(self.backlog.max())

    @property
    def suspensions(self) -> list[tuple[float, float | None]]:
        """(stop, resume) times in s of each spell with a backlog; resume None if it never empties."""
        spells: list[tuple[float, float | None]] = []
        stop, previous = None, 0.0
        for time, backlog in zip(self.times, self.backlog, strict=True):
            if stop is None and backlog > _EMPTY:
                stop = previous  # the backlog began on the segment ending here
            elif stop is not None and backlog <= _EMPTY:
                spells.append((stop, float(time)))
                stop = None
            previous = float(time)
        if stop is not None:
            spells.append((stop, None))
        return spells

    def describe_suspensions(self) -> str:
        """The spells without consistency groups in words, by minute."""
        return (
            "; ".join(
                f"stop at minute {stop / 60:.4g}, "
                + (
                    f"resume at minute {resume / 60:.4g}"
                    if resume is not None
                    else "no resume before the end"
                )
                for stop, resume in self.suspensions
            )
            or "consistency groups never stop"
        )

    @property
    def peak_time(self) -> float:
        """When the backlog is largest (its first such instant), s."""
        return float(self.times[int(np.argmax(self.backlog))])

    def events(self) -> list[tuple[float, str]]:
        """(time s, what happens) for each stop and resume of consistency groups and the peak backlog."""
        marks = [(self.peak_time, "peak backlog")] if self.peak_backlog > _EMPTY else []
        for stop, resume in self.suspensions:
            marks.append((stop, "groups stop"))
            if resume is not None:
                marks.append((resume, "groups resume"))
        return sorted(marks)

    def sample(self, step: float, most: int = 1_000_000) -> list[TimelineRow]:
        """The time-line every ``step`` seconds from 0 to its end: one row per sample.

        More than ``most`` rows is refused before they are made, with the step that would do.
        """
        if not step > 0:
            raise InputError("step", step, "> 0")
        rows = self.times[-1] / step + 1
        if rows > most:
            raise InputError(
                "--step",
                f"{step:g} s",
                f">= {self.times[-1] / (most - 1):.3g} s for this time-line",
                reason=f"{rows:,.0f} rows (about {rows * 56 / 1e9:.3g} GB); "
                "a coarser --step or a shorter --until",
            )
        return self.sample_at(np.arange(0.0, self.times[-1] + step / 2, step))

    def sample_at(self, samples: np.ndarray) -> list[TimelineRow]:
        """The time-line at the given times (s), one row each."""
        written, sent, backlog = self.at(samples)
        segment = np.searchsorted(self.times, samples, side="right") - 1
        return [
            TimelineRow(
                float(t),
                float(self.write_rate[i]),
                float(self.bandwidth[i]),
                float(w),
                float(s),
                float(b),
                b <= _EMPTY,
            )
            for t, i, w, s, b in zip(samples, segment, written, sent, backlog, strict=True)
        ]


class TimelineRow(NamedTuple):
    """The time-line at one instant: time s, rates MB/s, cumulative MB, and whether groups form."""

    time: float
    write_rate: float
    bandwidth: float
    written: float
    sent: float
    backlog: float
    forming: bool


def _check(name: str, value: float, allowed: str, ok: bool) -> None:
    if not ok:
        raise InputError(name, value, allowed)


def fluid_timeline(
    write_rate: float,
    bandwidth: float,
    until: float,
    bursts: Iterable[Burst] = (),
    outages: Iterable[Outage] = (),
) -> Timeline:
    """Backlog over [0, until] s for a steady write rate (MB/s) and bandwidth (MB/s).

    Raises InputError for negative rates, sizes or times, and when the steady
    write rate exceeds the full bandwidth: the backlog would then grow without
    bound whatever the schedule.
    """
    bursts = [Burst(*b) for b in bursts]
    outages = [Outage(*o) for o in outages]
    _check("write_rate", write_rate, ">= 0 MB/s", write_rate >= 0)
    _check("bandwidth", bandwidth, "> 0 MB/s", bandwidth > 0)
    _check("until", until, "> 0 s", until > 0)
    for burst in bursts:
        _check("burst size", burst.size, ">= 0 MB", burst.size >= 0)
        _check("burst rate", burst.rate, "> 0 MB/s", burst.rate > 0)
        _check("burst start", burst.start, ">= 0 s", burst.start >= 0)
    for outage in outages:
        _check("outage end", outage.end, "after its start", outage.end >= outage.start >= 0)
        _check(
            "outage available_fraction",
            outage.available_fraction,
            "0 <= fraction <= 1",
            0 <= outage.available_fraction <= 1,
        )
    if write_rate > bandwidth:
        raise InputError(
            "write_rate",
            f"{write_rate:g} MB/s",
            f"<= bandwidth {bandwidth:g} MB/s",
            reason=f"the backlog grows without bound at {write_rate - bandwidth:g} MB/s",
        )
    instants = {0.0, float(until)}
    for burst in bursts:
        instants |= {burst.start, burst.start + burst.size / burst.rate}
    for outage in outages:
        instants |= {outage.start, outage.end}
    events = sorted(t for t in instants if 0 <= t <= until)

    def rates(start: float) -> tuple[float, float]:
        writing = write_rate + sum(b.rate for b in bursts if b.start <= start < b.start + b.size / b.rate)
        fraction = min([o.available_fraction for o in outages if o.start <= start < o.end], default=1.0)
        return writing, bandwidth * fraction

    times, written, backlog, writes, links = [0.0], [0.0], [0.0], [], []
    for start, end in itertools.pairwise(events):
        writing, link = rates(start)
        queue, total = backlog[-1], written[-1]
        if writing < link and queue > 0 and queue / (link - writing) < end - start:
            empty_at = start + queue / (link - writing)
            writes.append(writing)
            links.append(link)
            times.append(empty_at)
            written.append(total + writing * (empty_at - start))
            backlog.append(0.0)
            start, queue, total = empty_at, 0.0, written[-1]
        writes.append(writing)
        links.append(link)
        times.append(end)
        written.append(total + writing * (end - start))
        backlog.append(max(0.0, queue + (writing - link) * (end - start)))
    writes.append(writes[-1] if writes else write_rate)
    links.append(links[-1] if links else bandwidth)
    written_arr, backlog_arr = np.array(written), np.array(backlog)
    return Timeline(
        np.array(times),
        written_arr,
        written_arr - backlog_arr,
        backlog_arr,
        np.array(writes),
        np.array(links),
    )


def _first_spell(timeline: Timeline) -> dict[str, float]:
    """When consistency groups first stop and first form again, s (nan where they never do)."""
    spells = timeline.suspensions
    stop, resume = spells[0] if spells else (np.nan, np.nan)
    return {"first_stop": float(stop), "first_resume": np.nan if resume is None else float(resume)}


def burst_suspension(
    write_rate: float,
    bandwidth: float,
    burst_size: float,
    burst_rate: float,
    burst_start: float,
    until: float,
    write_reduction: float = 1.0,
    burst_reduction: float = 1.0,
) -> dict[str, float]:
    """Registry form of one burst's time-line, SI in and out (B/s, B, s): first stop and resume, s.

    The time-line runs in the bytes the links carry: the steady writes divided by
    ``write_reduction``, the burst's by ``burst_reduction`` (bytes written per byte on the lines:
    Global Copy's coalescing times the converters' compression, catalogue ``global_mirror_data_sent``;
    1, the default, sends every byte written), against ``bandwidth`` in the same bytes.
    """
    mega = 1e6
    _check("write_reduction", write_reduction, "> 0", write_reduction > 0)
    _check("burst_reduction", burst_reduction, "> 0", burst_reduction > 0)
    sent = Burst(burst_start, burst_size / mega / burst_reduction, burst_rate / mega / burst_reduction)
    return _first_spell(
        fluid_timeline(write_rate / mega / write_reduction, bandwidth / mega, until, bursts=[sent])
    )


def outage_suspension(
    write_rate: float,
    bandwidth: float,
    outage_start: float,
    outage_end: float,
    available_fraction: float,
    until: float,
) -> dict[str, float]:
    """Registry form of a link outage's time-line, SI in and out (B/s, s): first stop and resume, s."""
    mega = 1e6
    return _first_spell(
        fluid_timeline(
            write_rate / mega,
            bandwidth / mega,
            until,
            outages=[Outage(outage_start, outage_end, available_fraction)],
        )
    )


def burst_timeline(
    write_rate: float, bandwidth: float, burst_size: float, burst_rate: float, burst_at: float, until: float
) -> Timeline:
    """One burst on a steady workload (MB, MB/s, s): the study's §4.2 experiment as a time-line."""
    return fluid_timeline(write_rate, bandwidth, until, bursts=[Burst(burst_at, burst_size, burst_rate)])
