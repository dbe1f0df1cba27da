"""A key and the value said for it stay on one line, as a number and its unit do (trial 6, R5).

At 80 columns, piped, the notes under an answer split "locks.lock_span" from "50%" and
"member.*.xi_share" from "0% (2 members)". The wrapping rule (qmodel.output.wrap_at_spaces) keeps a
key as a file names it with its value (and the count of what takes it), and a link's name with its
type, at every width.
"""

import json
import re

import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.output import wrap_at_spaces
from qmodel.scenario.files import resolve_scenario

NOTES = (
    "Defaults taken for keys the file leaves out: path.*.background_rate 0 (6 paths), disk.background_rate "
    "0, conversion.redispatch 0us, locks.lock_span 50%, distribution.shape 1, disk.mirror_protocol "
    "pre-deposit, member.*.xi_share 0% (2 members), member G1P1.gbp_writes 23.19. Links: celr_ab CE-LR, "
    "icasr_a ICA-SR, ica ICA-SR1.1, g1p1_cf1 IC (their service at 15 km as measured); each round trip "
    "first adds crossing_latency (138\N{NO-BREAK SPACE}µs)."
)
PAIRS = (
    "path.*.background_rate 0 (6 paths)",
    "locks.lock_span 50%",
    "disk.mirror_protocol pre-deposit",
    "member.*.xi_share 0% (2 members)",
    "member G1P1.gbp_writes 23.19",
    "celr_ab CE-LR",
    "icasr_a ICA-SR",
    "ica ICA-SR1.1",
    "g1p1_cf1 IC",
    "crossing_latency (138 µs)",
)


@pytest.mark.parametrize("width", range(36, 101))
def test_a_key_and_its_value_are_never_split_at_any_width(width: int) -> None:
    lines = wrap_at_spaces(NOTES, width)
    assert max(map(len, lines)) <= width
    for pair in PAIRS:
        assert any(pair in line for line in lines), (pair, lines)
    assert " ".join(lines) == NOTES.replace("\N{NO-BREAK SPACE}", " ")  # nothing lost or added


def test_prose_words_still_wrap_where_no_key_is() -> None:
    # the rule glues a key to its value, not any two words: a sentence of plain words wraps at each space,
    # a word in capitals that is no hardware type included (a table's "CPU [% of one CP]")
    text = "the goal holds to the distance asked, and beyond it the member falls below the goal of one CP"
    lines = wrap_at_spaces(text, 10)
    assert lines[-2:] == ["goal of", "one CP"]
    lower = wrap_at_spaces(text.replace("CP", "cp"), 10)  # the same words in lower case wrap alike
    assert lines == [line.replace("cp", "CP") for line in lower]


def test_the_notes_under_an_answer_keep_each_pair_on_a_line_at_80_columns(tmp_path) -> None:
    # Environment 2 with lock_span left out, so that the answer rests on its default; today's
    # Environment 3 for a key of one member and the links' names and types
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8")
    path = tmp_path / "env2.toml"
    path.write_text(re.sub(r'(?m)^lock_span = "50%"\n', "", text), encoding="utf-8")
    for scenario in (str(path), "today-env3"):
        shown = CliRunner().invoke(cli, ["scenario", scenario, "--distance", "20km"], env={"COLUMNS": "80"})
        assert shown.exit_code == 0, shown.output
        lines = shown.output.splitlines()
        assert max(map(len, lines)) <= 80
        said = json.loads(
            CliRunner().invoke(cli, ["scenario", scenario, "--distance", "20km", "--format", "json"]).output
        )
        pairs = [f"{key} {value}" for key, value in said["defaults"].items()]
        pairs += re.findall(r"\w+ [A-Z][A-Z0-9]*(?:-[\w.]*\w)?(?= |,)", " ".join(said.get("hardware", [])))
        flat = " ".join(shown.output.split())
        # the pairs the notes name (the round trip's keys have a sentence of their own, paths path.*)
        named = [pair for pair in pairs if pair in flat]
        assert len(named) >= 3
        for pair in named:
            assert any(pair in line for line in lines), (pair, lines)


@pytest.mark.parametrize("width", range(20, 101))
def test_a_distance_and_its_goal_probability_are_never_split(width: int) -> None:
    """Trial 8, P9: at 80 columns "meets the goal: 12 km" / "96%, 40 km 7%". Each distance asked stays on
    one line with its probability, as the answer's notes and --max-distance say them."""
    from qmodel.cli.scenario import _chance_at

    items = [_chance_at(d * 1e3, p) for d, p in ((12, 0.963), (40, 0.07), (70, 0.004), (100, 0.999))]
    text = (
        "--format json, band.method). Probability that every member meets the goal: " + ", ".join(items) + "."
    )
    lines = wrap_at_spaces(text, width)
    for item in ("12 km 96%", "40 km 7%", "70 km under 1%", "100 km over 99%"):
        assert any(item in line for line in lines), (item, lines)


@pytest.mark.parametrize("width", [50, 80])
def test_the_round_trip_label_stays_with_its_value(width) -> None:
    """Trial 9, P9: "Round trip per km:" ended a line at 80 columns, "9.804 µs" began the next: after a
    sentence of every length, the label and its value are on one line."""
    from qmodel.cli.scenario import _round_trip
    from qmodel.scenario.spec import load_scenario

    spec = load_scenario(resolve_scenario("gdps-env2"))
    value = f"{2e9 / spec.fibre_speed:.4g} µs"
    for before in range(1, width):
        lines = wrap_at_spaces(f"{'x' * before}. {_round_trip(spec)}", width)
        assert sum(f"Round trip per km: {value}" in line for line in lines) == 1, lines
