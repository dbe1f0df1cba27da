"""MkDocs hook: the benchmarks' figures, quoted from what the scripts in bench/ last measured.

A page holds a marker ``<!-- bench: NAME -->``; the hook replaces it with the Markdown that
:data:`RENDERERS` [NAME] makes of ``bench/figures/FILE.json``, which the script bench/FILE.py writes
when it runs (bench/timing.record: its figures, the date and the load average). So no timing in the
docs is typed by hand: running a script and building the docs brings them up to date.
``tests/test_docs_benchmarks.py`` renders every marker of the docs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "bench" / "figures"
MARKER = re.compile(r"<!-- bench: ([a-z-]+) -->")


def figures(name: str) -> dict:
    """bench/figures/NAME.json as the script wrote it."""
    return json.loads((FIGURES / f"{name}.json").read_text(encoding="utf-8"))


def _when(data: dict) -> str:
    return (
        f"measured {data['measured']} at a load average of {data['load_average']:.1f} on "
        f"{data['cores']} cores"
    )


def _ms(value: float) -> str:
    return f"{value:,.1f} ms" if value >= 1 else f"{value:.2f} ms"


def mva_peers() -> str:
    data = figures("mva_peers")
    found = data["figures"]
    rows = [
        ("single class, K = 100, N = 1..10,000 (X and R at every N)", "single"),
        ("3 classes, (30, 30, 30), K = 10", "multi"),
        ("Erlang C, c = 1..1000 at 90% per server", "erlang"),
        ("14 two-server stations and 6 queues, N = 1,000", "servers"),
        ("2 classes, an 8-server CPU, (50, 50)", "two_class"),
    ]
    lines = ["| workload | qmodel | line-solver | Octave queueing |", "| --- | --- | --- | --- |"]
    for label, key in rows:
        entry = found[key]
        cells = [label, _ms(entry["qmodel_ms"])]
        for peer in ("line-solver", "Octave"):
            if peer in entry["peers"]:
                p = entry["peers"][peer]
                cells.append(
                    f"{_ms(p['ms'])} ({p['ratio']:,.1f}×; {p['ratio_range'][0]:,.1f}–"
                    f"{p['ratio_range'][1]:,.1f}×)"
                )
            else:
                cells.append("—")
        lines.append("| " + " | ".join(cells) + " |")
    servers, two = found["servers"], found["two_class"]
    erlang, saturation = found["erlang"], found["saturation"]
    lines += [
        "",
        f"Medians of {found['rounds']} interleaved rounds, {_when(data)}; each ratio is the "
        "median of the rounds' ratios (their range after it). Throughput at N = 1,000 with the "
        "14 two-server stations: "
        + ", ".join(
            f"{name} within {value:.1e} of qmodel"
            for name, value in servers["deviation"].items()
            if name != "qmodel"
        )
        + ". Two classes with the 8-server CPU, against the positive-term convolution: "
        + ", ".join(f"{name} {value:.1e}" for name, value in two["deviation"].items())
        + ". Erlang C values not finite: "
        + ", ".join(f"{name} {count}" for name, count in erlang["not_finite"].items())
        + ". An 8-server station past saturation, X at N = "
        + ", ".join(map(str, saturation["populations"]))
        + ": exact "
        + ", ".join(f"{x:.10g}" for x in saturation["exact"])
        + "; "
        + "; ".join(
            f"{name} " + ", ".join(f"{x:.10g}" for x in saturation[name])
            for name in ("qmodel", "Octave")
            if name in saturation
        )
        + ".",
    ]
    return "\n".join(lines)


def mva_sweep() -> str:
    data = figures("mva_sweep")
    found = data["figures"]
    bounds, queues, four = found["bounds"], found["sweep_queues"], found["sweep_four_server"]
    big, wide, cli = found["lattice_160"], found["lattice_140"], found["cli"]
    return "\n".join(
        [
            f"- K = 1,000 queues, N = 1..1,000,000: the exact sweep {bounds['sweep_s']:.2f} s and its "
            f"bounds {bounds['bounds_s']:.2f} s of CPU (ratio {bounds['ratio']:.2f}, "
            f"{bounds['ratio_range'][0]:.2f}–{bounds['ratio_range'][1]:.2f} over the rounds); in a fresh "
            f"interpreter with the stations kept at "
            f"N = 10, 100, 1000: {queues['s']:.2f} s of CPU and {queues['peak_mb']:.0f} MB at its peak (the "
            f"interpreter with numpy, numba and the compiled kernels alone: "
            f"{found['interpreter_mb']:.0f} MB); "
            f"N = 1..200,000 with a 4-server station: {four['s']:.2f} s.",
            f"- Three classes at (160, 160, 160), K = 10: {big['s']:.2f} s of CPU (estimated "
            f"{big['estimate_s']:.2f} s), {big['peak_mb']:.1f} MB at its peak (the ring of the lattice the "
            f"recursion reads back); (140, 140, 140), K = 100: {wide['s']:.2f} s (estimated "
            f"{wide['estimate_s']:.2f} s), {wide['peak_mb']:.1f} MB.",
            f"- `qmodel mva`, K = 1,000, N = 1..1,000,000 as CSV with the bounds at every N: "
            f"{cli['csv']:.1f} s "
            f"of CPU, the whole process; with `--at 10,1000000`: {cli['csv_at']:.1f} s; every station "
            f"(`--stations`) at N = 1..1,000, a million rows: {cli['csv_stations']:.1f} s ({_when(data)}).",
        ]
    )


def quick_answer() -> str:
    data = figures("quick_answer")
    found = data["figures"]
    lines = []
    for where, medians in found["medians_ms"].items():
        base = medians["baseline"]
        targets = found["targets"]
        lines.append(
            f"- {where}: the import floor {base:.0f} ms; `qmodel calc mm1` "
            f"{medians['calc'] / base:.2f}× it (target ≤ {targets['calc']}×); `qmodel mva` on the "
            f"4-station example {medians['mva'] / base:.2f}× (target ≤ {targets['mva']}×)."
        )
    heavy = found["heavy_imports"]
    lines.append(
        f"- Medians of {found['runs']} interleaved runs, {_when(data)}. Heavy imports (sympy, "
        "scipy, numba, rich's console or table): "
        + "; ".join(f"`{name}` {', '.join(modules) or 'none'}" for name, modules in heavy.items())
        + "."
    )
    return "\n".join(lines)


def limits_calibration() -> str:
    data = figures("limits_calibration")
    found = data["figures"]
    lines = ["| request | size | estimated | measured CPU | ratio |", "| --- | --- | --- | --- | --- |"]
    for name, case in found["cases"].items():
        lines.append(
            f"| {name} | N = {case['population']:,} | {case['estimate_s']:.3g} s | "
            f"{case['measured_s']:.3g} s | {case['estimate_s'] / case['measured_s']:.2f} |"
        )
    lines += [
        "",
        f"At estimates of {found['limit_fraction']:.0%} of the limit, {_when(data)}; the "
        f"interpreted kernel ran {found['interpreted_rate']:.2g} operations per second.",
    ]
    return "\n".join(lines)


def engine_breadth() -> str:
    """bench/engine_breadth.py: routing visits and priority MVA at 100 stations × 5 classes."""
    data = figures("engine_breadth")
    found = data["figures"]
    rows = [f"| {name} | {_ms(seconds * 1e3)} |" for name, seconds in found["seconds"].items()]
    return (
        f"{found['classes']} classes × {found['stations']} stations, the median of {found['rounds']} "
        f"interleaved rounds ({_when(data)}; target 0.1 s):\n\n| case | time |\n| --- | --- |\n"
        + "\n".join(rows)
        + "\n"
    )


def check_cost() -> str:
    """bench/check_cost.py: what ``qmodel check`` costs, the figures its time estimate rests on."""
    data = figures("check_cost")
    found = data["figures"]
    return (
        f"Every {found['sample_every']}th shipped entry and ranks.toml's ({_when(data)}): "
        f"{_ms(found['example_ms'])} an example of a check, {_ms(found['check_ms'])} to start a check, "
        f"{_ms(found['entry_ms'])} an entry's setup (parsed, lambdified; {found['entry_kb']:.0f} KB kept), "
        f"{_ms(found['compile_ms'])} an entry of a user's file compiled on its first use. "
        f"ranks.toml's entry at 100 examples: estimated {found['ranks_estimated_s']:.2f} s, "
        f"measured {found['ranks_measured_s']:.2f} s of CPU.\n"
    )


RENDERERS = {
    "check-cost": check_cost,
    "mva-peers": mva_peers,
    "mva-sweep": mva_sweep,
    "quick-answer": quick_answer,
    "limits-calibration": limits_calibration,
    "engine-breadth": engine_breadth,
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: each marker replaced by its figures."""
    return MARKER.sub(lambda match: RENDERERS[match[1]](), markdown)
