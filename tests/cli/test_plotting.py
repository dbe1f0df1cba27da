"""The scenario plot tells the truth about a percentile goal: the WLM goal (90% within 125 ms) is judged
on each member's share of transactions within 125 ms, drawn in its own panel, never as a line on the
mean response time; the distances with no answer are marked and named in the legend."""

import json
import re
from dataclasses import replace

import matplotlib
import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.cli.plotting import _draw_bands, goal_held_to, scenario_figure
from qmodel.scenario import load_scenario, max_distance, solve_scenario
from qmodel.scenario.files import resolve_scenario

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after choosing the backend

ENV3 = load_scenario(resolve_scenario("gdps-env3"))
ENV2_FILE = resolve_scenario("gdps-env2")
README_SWEEP = np.linspace(0, 100e3, 41)  # the README's plot: --distance 0..100km --points 41
GOAL_LINE = "goal: 90% within 125 ms"
HELD_LINE = "goal holds to here (last distance plotted)"
LOCKS = "lock contention thrashes: no answer"
VOLUMES = "volumes cannot carry their other work: no answer"


@pytest.fixture(scope="module")
def env3():
    return solve_scenario(ENV3, README_SWEEP)


@pytest.fixture(scope="module")
def thrashing():
    # half the lockable items: lock contention thrashes from 25 km on (0..100 km, 21 distances)
    result = solve_scenario(replace(ENV3, lockable_items=ENV3.lockable_items / 2), np.linspace(0, 100e3, 21))
    assert result.thrashing.any() and not result.thrashing.all()
    return result


def drawn(result):
    """The figure's panels as (mean-response panels, share panels), one of each per member."""
    figure = scenario_figure(result, plt)
    members = len(result.members)
    assert len(figure.axes) == 2 * members
    return figure, figure.axes[:members], figure.axes[members:]


@pytest.fixture
def env3_panels(env3):
    figure, time_panels, share_panels = drawn(env3)
    yield figure, time_panels, share_panels
    plt.close(figure)


def lines(axes, label: str):
    return [line for line in axes.get_lines() if line.get_label() == label]


def vertical_at(axes, label: str) -> list[float]:
    """The distances (km) of the vertical lines labelled ``label``."""
    found = []
    for line in lines(axes, label):
        x = np.asarray(line.get_xdata(), float)
        assert x[0] == x[-1]
        found.append(float(x[0]))
    return sorted(found)


def legend_labels(axes) -> list[str]:
    legend = axes.get_legend()
    return [] if legend is None else [text.get_text() for text in legend.get_texts()]


def test_each_member_has_its_mean_response_above_its_share_within_the_goal_on_one_distance_axis(
    env3_panels,
) -> None:
    _, time_panels, share_panels = env3_panels
    for time_axes, share_axes in zip(time_panels, share_panels, strict=True):
        assert share_axes.get_shared_x_axes().joined(time_axes, share_axes)
        assert share_axes.get_position().y1 <= time_axes.get_position().y0
    assert [axes.get_title() for axes in time_panels] == ["G1P1", "G1P2"]


def test_every_axis_label_gives_its_unit(env3_panels) -> None:
    _, time_panels, share_panels = env3_panels
    assert time_panels[0].get_ylabel() == "mean response time per transaction [ms]"
    assert share_panels[0].get_ylabel() == "transactions within 125 ms [%]"
    assert all(axes.get_xlabel() == "distance between sites [km]" for axes in share_panels)


def test_the_goal_share_is_a_line_at_90_percent_on_the_share_panels(env3_panels) -> None:
    _, _, share_panels = env3_panels
    for axes in share_panels:
        (goal,) = lines(axes, GOAL_LINE)
        assert np.allclose(goal.get_ydata(), 90)
    assert GOAL_LINE in legend_labels(share_panels[-1])


def test_no_goal_line_is_drawn_on_the_mean_response_time(env3_panels) -> None:
    _, time_panels, _ = env3_panels
    for axes in time_panels:
        assert not any("goal:" in line.get_label() for line in axes.get_lines())
        assert not any(np.allclose(line.get_ydata(), 125) for line in axes.get_lines())


def test_the_share_panel_draws_each_members_share_in_percent(env3_panels) -> None:
    # the share drawn at 10 km is the one `qmodel scenario gdps-env3 --distance 10km` answers, in percent
    _, _, share_panels = env3_panels
    at_10_km = solve_scenario(ENV3, np.array([10e3])).share_within_goal[:, 0] * 100
    for panel, expected in zip(share_panels, at_10_km, strict=True):
        (share,) = lines(panel, "transactions within 125 ms")
        drawn_at = np.flatnonzero(np.isclose(share.get_xdata(), 10))[0]
        assert share.get_ydata()[drawn_at] == pytest.approx(expected, rel=1e-9)
    assert 1 < at_10_km.min() < 100  # a percentage, not a fraction


def test_the_goal_mark_agrees_with_the_goal_seek_to_one_plotted_step(env3_panels) -> None:
    # the goal seek: G1P2 breaks the goal at 8.7 km; the sweep's step is 2.5 km
    figure, time_panels, share_panels = env3_panels
    seek = max_distance(ENV3)
    g1p2 = vertical_at(share_panels[1], HELD_LINE)
    assert seek.member == "G1P2" and len(g1p2) == 1
    assert seek.distance / 1e3 - 2.5 < g1p2[0] <= seek.distance / 1e3
    assert vertical_at(time_panels[1], HELD_LINE) == g1p2
    assert f"holds to {g1p2[0]:g} km" in figure.get_suptitle()


def test_the_goal_mark_is_the_end_of_the_first_stretch_meeting_the_goal() -> None:
    km = np.array([0.0, 10.0, 20.0, 30.0])
    assert goal_held_to(km, np.array([True, True, False, False])) == 10.0
    assert goal_held_to(km, np.array([True, False, True, True])) == 0.0
    assert goal_held_to(km, np.array([False, True, True, True])) is None
    assert goal_held_to(km, np.ones(4, bool)) == 30.0


def test_a_goal_held_over_the_whole_sweep_draws_no_mark_and_says_so() -> None:
    near = solve_scenario(ENV3, np.linspace(0, 4e3, 5))
    figure, time_panels, share_panels = drawn(near)
    assert not any(vertical_at(axes, HELD_LINE) for axes in (*time_panels, *share_panels))
    assert "holds at every distance, to 4 km" in figure.get_suptitle()
    plt.close(figure)


def test_thrashing_distances_are_marked_in_both_panels_with_one_legend_entry(thrashing) -> None:
    figure, time_panels, share_panels = drawn(thrashing)
    expected = sorted(thrashing.distances[thrashing.thrashing] / 1e3)
    for axes in (*time_panels, *share_panels):
        assert vertical_at(axes, LOCKS) == pytest.approx(expected)
    for row in (time_panels, share_panels):
        assert legend_labels(row[-1]).count(LOCKS) == 1 and VOLUMES not in legend_labels(row[-1])
    plt.close(figure)


def test_saturated_volumes_are_named_as_such_not_as_lock_contention(thrashing) -> None:
    figure, time_panels, _ = drawn(replace(thrashing, disk_saturated=thrashing.thrashing))
    assert VOLUMES in legend_labels(time_panels[-1]) and LOCKS not in legend_labels(time_panels[-1])
    plt.close(figure)


def test_no_legend_covers_a_panel(thrashing) -> None:
    figure, time_panels, share_panels = drawn(thrashing)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    panels = [axes.get_window_extent(renderer) for axes in (*time_panels, *share_panels)]
    for axes in (time_panels[-1], share_panels[-1]):
        legend = axes.get_legend().get_window_extent(renderer)
        assert not any(legend.overlaps(panel) for panel in panels)
        assert legend.x1 <= figure.bbox.x1
    plt.close(figure)


def test_distances_typed_out_of_order_are_drawn_in_order() -> None:
    result = solve_scenario(ENV3, np.array([50e3, 0.0, 10e3, 20e3]))
    figure, _, share_panels = drawn(result)
    (share,) = lines(share_panels[1], "transactions within 125 ms")
    assert list(share.get_xdata()) == [0, 10, 20, 50]
    assert list(share.get_ydata()) == sorted(share.get_ydata(), reverse=True)
    plt.close(figure)


def test_the_scenario_command_writes_the_plot(tmp_path) -> None:
    target = tmp_path / "env3.png"
    result = CliRunner().invoke(
        cli,
        [
            "scenario",
            "gdps-env3",
            "--distance",
            "0..20km",
            "--points",
            "5",
            "--plot",
            str(target),
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0, result.output
    assert target.read_bytes().startswith(b"\x89PNG")


# --max-distance --plot: today's distance and an answer of 0 km are marked (trial 6, R6)


def seek_figure(monkeypatch, tmp_path, scenario: str):
    """--max-distance --plot on ``scenario``: its JSON answer and the figure it draws (not saved)."""
    drawn = {}

    def draw(result, path, marks=None, today=None):
        drawn["figure"] = scenario_figure(result, plt, marks, today)

    monkeypatch.setattr("qmodel.cli.plotting.plot_scenario", draw)
    args = ["scenario", scenario, "--max-distance", "--plot", str(tmp_path / "seek.png"), "--format", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output), drawn["figure"]


def env2_written(tmp_path, *changes: tuple[str, str]) -> str:
    """Environment 2's file with each (pattern, replacement) applied once, no [band] of its own."""
    text = re.sub(r"^\[band\]\n(?:(?!\[).*\n)*", "", ENV2_FILE.read_text(encoding="utf-8"), flags=re.M)
    for pattern, replacement in changes:
        text, count = re.subn(pattern, replacement, text, count=1, flags=re.M)
        assert count == 1, pattern
    path = tmp_path / "env2.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_goal_seek_plot_marks_todays_distance_in_every_panel(monkeypatch, tmp_path) -> None:
    # Environment 2 read at 12 km (its cross-site links' service 300 us there, the PPRC overhead 0.5 ms)
    measured = env2_written(
        tmp_path,
        (r'^measured_at = "0km"', 'measured_at = "12km"'),
        (r'^sync = \{ cache = "151us" \}', 'sync = { cache = "300us" }'),
        (r'^async = \{ cache = "151us" \}', 'async = { cache = "300us" }'),
        (r'^sync = \{ cache = "210us" \}', 'sync = { cache = "300us" }'),
        (r'^async = \{ cache = "210us" \}', 'async = { cache = "300us" }'),
        (r'^pprc_overhead = "0.3ms"', 'pprc_overhead = "0.5ms"'),
    )
    answer, figure = seek_figure(monkeypatch, tmp_path, measured)
    assert answer["measured_at[km]"] == 12
    for axes in figure.axes:
        assert vertical_at(axes, "today: 12 km") == [12.0]
        assert axes.get_xlim()[1] > 12
    assert "today: 12 km" in legend_labels(figure.axes[-1])
    plt.close(figure)
    # measured at 0 km: no line for today
    _, figure = seek_figure(monkeypatch, tmp_path, "gdps-env2")
    assert not any(line.get_label().startswith("today") for axes in figure.axes for line in axes.get_lines())
    plt.close(figure)


def test_an_answer_of_0_km_is_drawn_as_the_goal_seeks_line(monkeypatch, tmp_path) -> None:
    # a goal Environment 2 meets at 0 km but not past the first metre's crossing_latency: the answer 0.0 km
    tight = env2_written(tmp_path, (r'^response_time = "125ms"$', 'response_time = "91ms"'))
    answer, figure = seek_figure(monkeypatch, tmp_path, tight)
    assert answer["max_distance[km]"] == 0.0
    for axes in figure.axes:
        assert vertical_at(axes, "goal seek: 0.0 km") == [0.0]
    assert "goal seek: 0.0 km" in legend_labels(figure.axes[-1])
    plt.close(figure)


def sysplex_of(members: int) -> str:
    """A two-site sysplex of ``members`` open members, alternately at each site, each with a path to both
    CFs (a typed link within a site, an untyped one between them)."""
    sites = ("MAIN", "FAR")
    text = [
        'sites = ["MAIN", "FAR"]\n[goal]\nresponse_time = "50ms"\nshare = "90%"\n',
        '[[cf]]\nname = "CF1"\nsite = "MAIN"\nstructures = { LOCK1 = "lock", GBP4P = "cache" }\n',
        '[[cf]]\nname = "CF2"\nsite = "FAR"\nstructures = { GBP4S = "secondary of GBP4P" }\n',
    ]
    for m in range(members):
        name, site = f"SYS{m + 1}", sites[m % 2]
        text.append(
            f'[[member]]\nname = "{name}"\nsite = "{site}"\nlogical_cps = 8\narrival_rate = {50 + 10 * m}\n'
            'cpu = "2ms"\nother = "5ms"\nsync_reads = 4\nlog_writes = 1.5\ntpno_share = "90%"\n'
            "requests = { LOCK1 = 10.0, GBP4P = 6.0, GBP4S = 2.0 }\n"
        )
        for cf, cf_site in (("CF1", "MAIN"), ("CF2", "FAR")):
            link = "ica" if site == cf_site else "far"
            text.append(f'[[path]]\nmember = "{name}"\ncf = "{cf}"\nlink = "{link}"\n')
    text.append(
        '[link.ica]\ntype = "ICA-SR"\nsync = { lock = "4us", cache = "5us" }\nasync = { lock = "50us", '
        'cache = "55us" }\n[link.far]\nsync = { lock = "9us", cache = "11us" }\nasync = { lock = "65us", '
        'cache = "70us" }\n[disk]\nprimary_site = "MAIN"\nread = { conn = "0.12ms" }\n'
        'write = { conn = "0.1ms" }\n[locks]\nlockable_items = 20000\nresolution_round_trips = 2\n'
    )
    return "\n".join(text)


@pytest.mark.parametrize(("members", "grid"), [(2, (2, 2)), (3, (2, 3)), (4, (4, 3)), (6, (4, 3))])
def test_members_are_laid_out_at_most_three_a_row_each_panel_readable(tmp_path, members, grid) -> None:
    """Trial 8, P12: six members were one strip 2950 px wide (29.5 in), each panel about 230 px. At most
    three members a row, the rest below; every panel as wide as in a sysplex of three, every member
    titled, its distances read under its own share panel, one scale for all, the unused cells empty,
    and the legends beside the first row."""
    path = tmp_path / "many.toml"
    path.write_text(sysplex_of(members), encoding="utf-8")
    result = solve_scenario(load_scenario(path), np.array([0.0, 20e3, 40e3]))
    figure = scenario_figure(result, plt)
    shown = [axes for axes in figure.axes if axes.get_visible()]
    assert len(figure.axes) == grid[0] * grid[1] and len(shown) == 2 * members
    assert figure.get_size_inches()[0] <= 4.5 * 3 + 2.5
    titles = [axes.get_title() for axes in shown if axes.get_title() in result.members]
    assert titles == list(result.members)
    share_panels = [axes for axes in shown if axes.get_xlabel()]
    assert len(share_panels) == members
    assert all(
        any(label.get_visible() and label.get_text() for label in axes.get_xticklabels())
        for axes in share_panels
    )
    time_panels = [axes for axes in shown if axes not in share_panels]
    assert len({axes.get_ylim() for axes in time_panels}) == 1  # one scale for every member
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    extents = [axes.get_window_extent(renderer) for axes in shown]
    legends = [axes.get_legend() for axes in figure.axes if axes.get_legend() is not None]
    assert len(legends) == 2
    for legend in legends:
        box = legend.get_window_extent(renderer)
        assert not any(box.overlaps(panel) for panel in extents) and box.x1 <= figure.bbox.x1
    plt.close(figure)


def test_a_band_end_without_a_value_is_shaded_to_the_panels_edge() -> None:
    """Where some of a band's points have no answer, its response time's high end (a share's low end) has
    no value: the band is shaded to the panel's edge there, not dropped (trial 9, Q12), and the panel's
    scale still holds every finite end."""
    figure, axes = plt.subplots()
    axes.plot([0.0, 50.0, 100.0], [10.0, 20.0, 30.0])
    _draw_bands(
        np.array([0.0, 50.0, 100.0]),
        [(axes, np.array([8.0, 15.0, 25.0]), np.array([40.0, np.nan, np.nan]))],
        "",
    )
    top = axes.get_ylim()[1]
    assert top >= 40.0
    (shaded,) = axes.collections
    heights = np.concatenate([path.vertices[:, 1] for path in shaded.get_paths()])
    assert heights.max() == pytest.approx(top) and heights.min() == pytest.approx(8.0)
    plt.close(figure)
