"""Hostile and careless user catalogues, through the CLI as a planner runs it (issue 22).

Every case ends in the right answer (exit 0) or one line of error (exit 2); no
traceback, no numpy warning on the terminal, nothing in the file or its name
run (a canary file is never created), no hang (each run has a time limit).
"""

from __future__ import annotations

import csv
import io
import keyword
import math
import os
import subprocess
import sys
import tokenize
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.loader import MATH_FUNCTION_ARITIES
from qmodel.catalogue.user import _cache_file, read_catalogue_file, use_catalogues
from qmodel.cli import cli

CANARY = "qmodel-canary"
PAYLOAD = f'__import__("pathlib").Path("{CANARY}").touch()'
ENTRY = """
[[formula]]
id = "{id}"
title = "{text}"
source = "{text}"
notes = "{text}"
{extra}
[formula.symbols.{symbol}]
meaning = "{text}"
unit = "1"
domain = "[0, inf)"

[[formula.outputs]]
name = "{output}"
expr = "{expr}"
unit = "1"
meaning = "{text}"
"""


def entry(
    id: str = "my_entry",
    symbol: str = "x",
    output: str = "y",
    expr: str = "2*x",
    extra: str = "",
    text: str = "t",
) -> str:
    return ENTRY.format(id=id, symbol=symbol, output=output, expr=expr, extra=extra, text=text)


def run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``qmodel ARGS`` in a fresh process in tmp_path (where the canary would be made), 60 s at most."""
    script = "import sys; from qmodel.cli import main; sys.argv = ['qmodel', *sys.argv[1:]]; main()"
    environment = {key: value for key, value in os.environ.items() if key != "QMODEL_CATALOGUE"}
    environment.update({"XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})})
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
    )


def assert_one_line_error(result, *words: str) -> None:
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 2, output
    assert output.startswith("error: ") and "\n" not in output, output
    assert "Traceback" not in output and "Warning" not in output
    for word in words:
        assert word in output, output


def assert_answer(result, text: str) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert text in result.stdout, result.stdout


# ----- nothing user-supplied runs: the file's name, its text, the cache


HOSTILE_NAMES = [
    'c""";' + PAYLOAD + ';"""x.toml',
    "c''';" + PAYLOAD + ";'''x.toml",
    "C:\\Users\\planner\\x.toml",  # a Windows path (\U was a broken escape)
    "new\nline\\N{x}.toml",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
@pytest.mark.parametrize("route", ["--catalogue", "QMODEL_CATALOGUE", "check"])
def test_a_hostile_file_name_is_only_a_name(tmp_path, name: str, route: str) -> None:
    if route == "QMODEL_CATALOGUE" and os.pathsep in name:
        pytest.skip(f"QMODEL_CATALOGUE separates paths by {os.pathsep!r}")
    (tmp_path / name).write_text(entry(), encoding="utf-8")
    if route == "check":
        result = run(tmp_path, "check", name, "--examples", "5")
        assert result.returncode == 0, result.stdout + result.stderr
    elif route == "QMODEL_CATALOGUE":
        assert_answer(
            run(
                tmp_path,
                "calc",
                "my_entry",
                "x=2",
                "--format",
                "csv",
                env={"QMODEL_CATALOGUE": str(tmp_path / name)},
            ),
            "y,4",
        )
    else:
        assert_answer(run(tmp_path, "calc", "my_entry", "x=2", "--format", "csv", "--catalogue", name), "y,4")
    assert not (tmp_path / CANARY).exists()


HOSTILE_TEXT = [
    '"""' + PAYLOAD + '"""',
    "'''" + PAYLOAD + "'''",
    "C:\\\\Users\\\\x \\\\N{x} \\\\U0001",
    PAYLOAD,
]


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=range(len(HOSTILE_TEXT)))
def test_hostile_descriptions_are_data(tmp_path, monkeypatch, text: str) -> None:
    monkeypatch.chdir(tmp_path)
    quoted = text.replace('"', '\\"')
    constraint = f'constraints = [{{ name = "{quoted}", expr = "x", below = 100, reason = "{quoted}" }}]'
    path = tmp_path / "c.toml"
    path.write_text(entry(text=quoted, extra=constraint), encoding="utf-8")
    use_catalogues([str(path)])
    assert float(calc("my_entry", x=2).y) == 4
    assert not (tmp_path / CANARY).exists()


HOSTILE_FIELDS = {
    "id": dict(id='x"); __import__("os")  #'),
    "id with a capital": dict(id="Json"),
    "symbol": dict(symbol='"x;__import__"', expr="2"),
    "output": dict(output="y = __import__('os') #"),
    "expression": dict(expr=PAYLOAD.replace('"', "'")),
    "expression with an attribute": dict(expr="x.__class__"),
    "Sum index": dict(expr="Sum(x, (__import__, 0, 3))"),
    "Sum index with a capital": dict(expr="Sum(x, (K, 0, 3))"),
    "function": dict(extra='function = "F(x)"'),
    "function of a mathematical name": dict(extra='function = "Sum"'),
    "function of another mathematical name": dict(extra='function = "Piecewise"'),
    "model": dict(extra='model = "os.system"'),
    "algorithm": dict(extra='function = "F"\nalgorithm = "__import__"'),
}


@pytest.mark.parametrize("field", HOSTILE_FIELDS)
def test_a_hostile_name_or_expression_is_a_one_line_error(tmp_path, field: str) -> None:
    (tmp_path / "c.toml").write_text(entry(**HOSTILE_FIELDS[field]), encoding="utf-8")
    result = CliRunner().invoke(cli, ["calc", "my_entry", "x=2", "--catalogue", str(tmp_path / "c.toml")])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    assert not (tmp_path / CANARY).exists()


def test_a_hostile_unit_is_a_one_line_error(tmp_path) -> None:
    (tmp_path / "c.toml").write_text(entry().replace('unit = "1"', "unit = \"__import__('os')\"", 1))
    result = CliRunner().invoke(cli, ["calc", "my_entry", "x=2", "--catalogue", str(tmp_path / "c.toml")])
    assert result.exit_code == 2 and "unknown unit" in result.output


def test_a_cached_module_is_not_run_unless_its_key_is_the_files(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "c.toml"
    path.write_text(entry(), encoding="utf-8")
    use_catalogues([str(path)])
    cached = _cache_file([read_catalogue_file(str(path))])
    for first_line in ("# qmodel user catalogue, key 0123", "# not a key line"):
        cached.write_text(f"{first_line}\n{PAYLOAD}\n", encoding="utf-8")
        use_catalogues([str(path)])
        assert not (tmp_path / CANARY).exists()
        assert float(calc("my_entry", x=2).y) == 4


def test_the_generated_module_uses_no_name_but_the_users_and_its_own_prefixed_ones(tmp_path) -> None:
    """Every name in the generated code is a keyword, a name from the file, or one of the module's
    own (``_qm_numpy``, ...): so no name a user chooses can shadow one the code relies on."""
    path = tmp_path / "c.toml"
    path.write_text(CONSTRUCTS, encoding="utf-8")
    use_catalogues([str(path)])
    text = _cache_file([read_catalogue_file(str(path))]).read_text(encoding="utf-8")
    users = {"json", "abs", "range", "math", "numpy", "builtins", "factorial", "k"}
    tokens = [
        token
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if not token.line.startswith(("import ", "from "))
    ]  # imports bind their "as" names
    looked_up = {
        token.string
        for before, token, after in zip(tokens, tokens[1:], tokens[2:], strict=False)
        if token.type == tokenize.NAME
        and not keyword.iskeyword(token.string)
        and before.string not in (".", "def")  # an attribute, a definition
        and after.string != "="
    }  # an assignment, a keyword argument
    foreign = {name for name in looked_up - users if not name.startswith("_")}
    assert foreign == set()


# ----- names users choose do not break the generated code; every allowed construct works

CONSTRUCTS = '''
[[formula]]
id = "json"
title = "every construct, under names the generated code might have used"
source = "s"

[formula.symbols.abs]
meaning = "m"
unit = "1"
domain = "[0, inf)"

[formula.symbols.range]
meaning = "m"
unit = "1"
domain = "[0, 50] integer"

[formula.symbols.math]
meaning = "m"
unit = "1"
domain = "[0, inf)"
default = 1

[[formula.outputs]]
name = "numpy"
expr = "Abs(abs - 3) + Sum(abs**k/factorial(k), (k, 0, range)) + factorial(range) + math"
unit = "1"
meaning = "m"

[[formula.outputs]]
name = "builtins"
expr = """sqrt(abs) + exp(-abs) + log(abs + 1) + log(abs + 1, 2) + ceiling(abs) + floor(abs) + pi \
    + lowergamma(1.5, abs)"""
unit = "1"
meaning = "m"

[[formula.outputs]]
name = "factorial"
expr = """Min(abs, 1) + Max(abs, 1, 2) + Piecewise((1, Eq(abs, 1)), (2, And(abs > 1, Ne(range, 2))), \
    (3, Or(abs < 0.5, range > 3)), (4, True))"""
unit = "1"
meaning = "m"
'''


def _constructs_by_hand(a: float, r: int) -> tuple[float, float, float]:
    numpy = abs(a - 3) + sum(a**k / math.factorial(k) for k in range(r + 1)) + math.factorial(r) + 1
    builtins = (
        math.sqrt(a)
        + math.exp(-a)
        + math.log(a + 1)
        + math.log(a + 1, 2)
        + math.ceil(a)
        + math.floor(a)
        + math.pi
        + math.sqrt(math.pi) / 2 * math.erf(math.sqrt(a))
        - math.sqrt(a) * math.exp(-a)
    )  # γ(3/2, a), A&S 6.5.22 with erf
    piece = 1 if a == 1 else 2 if (a > 1 and r != 2) else 3 if (a < 0.5 or r > 3) else 4
    return numpy, builtins, min(a, 1) + max(a, 1, 2) + piece


def test_every_construct_works_under_names_that_once_shadowed_the_generated_code(tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(CONSTRUCTS, encoding="utf-8")
    use_catalogues([str(path)])
    a, r = np.array([0.25, 1.0, 2.5, 7.0]), np.array([0, 2, 4, 9])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = calc("json", abs=a, range=r)
    expected = np.array([_constructs_by_hand(float(x), int(n)) for x, n in zip(a, r, strict=True)])
    assert np.allclose(result.numpy, expected[:, 0], rtol=1e-13)
    assert np.allclose(result.builtins, expected[:, 1], rtol=1e-13)
    assert np.allclose(result.factorial, expected[:, 2], rtol=1e-13)


def test_check_passes_every_construct_under_those_names_against_50_digits(tmp_path) -> None:
    (tmp_path / "c.toml").write_text(CONSTRUCTS, encoding="utf-8")
    result = run(tmp_path, "check", "c.toml", "--examples", "20")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed, 0 failed" in result.stdout


def test_the_constructs_entry_covers_every_function_the_parser_allows() -> None:
    called = {name for name in MATH_FUNCTION_ARITIES if f"{name}(" in CONSTRUCTS}
    assert called == set(MATH_FUNCTION_ARITIES)


def test_a_sum_with_a_limit_too_large_is_refused_with_its_estimate(tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(entry(expr="Sum(1/(k + 1)**2, (k, 0, x))"), encoding="utf-8")
    assert_answer(
        run(tmp_path, "calc", "my_entry", "x=3", "--format", "csv", "--catalogue", "c.toml"), "y,1.4236"
    )
    assert_one_line_error(
        run(tmp_path, "calc", "my_entry", "x=1e12", "--catalogue", "c.toml"),
        "Sum over k",
        "too large to compute",
    )


@pytest.mark.parametrize("command", ["batch", "sweep"])
def test_a_sum_too_long_refuses_only_its_row_and_the_others_are_computed_as_alone(tmp_path, command) -> None:
    # the Sum's terms are counted per row: a row too long alone is named (its input, value, what is
    # allowed); the rows around it are computed exactly as calc computes each alone
    (tmp_path / "c.toml").write_text(entry(expr="Sum(1/(k + 1)**2, (k, 0, x))"), encoding="utf-8")
    (tmp_path / "rows.csv").write_text("x\n3\n1e12\n10\n", encoding="utf-8")
    args = (
        ["batch", "my_entry", "rows.csv"]
        if command == "batch"
        else ["sweep", "my_entry", "x=3,1e12,10", "--format", "csv"]
    )
    result = run(tmp_path, *args, "--catalogue", "c.toml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))[1:]
    alone = [
        list(
            csv.reader(
                io.StringIO(
                    run(
                        tmp_path, "calc", "my_entry", f"x={x}", "--format", "csv", "--catalogue", "c.toml"
                    ).stdout
                )
            )
        )[-1][2]
        for x in (3, 10)
    ]
    assert [rows[0][1], rows[2][1]] == alone
    assert rows[1][1] == "" and rows[1][2].startswith("x = 1e+12 (Sum over k of 1e+12 terms")
    assert "allowed: values giving the Sum over k at most" in rows[1][2]
    assert command == "sweep" or "row 3: x = 1e+12" in result.stderr  # batch names it there too


# ----- entries calling each other in a cycle

CALLER = """
[[formula]]
id = "{id}"
title = "t"
source = "s"
function = "{function}"
[formula.symbols.x]
meaning = "m"
unit = "1"
domain = "[0, inf)"
[[formula.outputs]]
name = "y"
expr = "{calls}(x) + 1"
unit = "1"
meaning = "m"
"""

CYCLES = {
    "itself": ([("a", "Fa", "Fa")], "'a' calls 'a'"),
    "a pair": ([("a", "Fa", "Fb"), ("b", "Fb", "Fa")], "'a' calls 'b' calls 'a'"),
    "three, after a chain": (
        [("a", "Fa", "Fb"), ("b", "Fb", "Fc"), ("c", "Fc", "Fd"), ("d", "Fd", "Fb")],
        "'b' calls 'c' calls 'd' calls 'b'",
    ),
}


@pytest.mark.parametrize("cycle", CYCLES)
@pytest.mark.parametrize("command", ["calc", "check"])
def test_entries_calling_each_other_in_a_cycle_are_refused_naming_it(
    tmp_path, cycle: str, command: str
) -> None:
    entries, named = CYCLES[cycle]
    text = "".join(CALLER.format(id=i, function=f, calls=c) for i, f, c in entries)
    (tmp_path / "c.toml").write_text(text, encoding="utf-8")
    args = ["calc", "a", "x=1", "--catalogue", "c.toml"] if command == "calc" else ["check", "c.toml"]
    assert_one_line_error(run(tmp_path, *args), named)


# ----- loops once per server or stage: answered at once, or refused with the estimate


@pytest.mark.parametrize(
    "args, answer",
    [
        (["erlang_c", "servers=1e8", "offered_load=9e7"], "wait_probability,0"),
        (["erlang_b", "servers=1e8", "offered_load=2e8"], "blocking_probability,0.5"),
        (["mmc", "servers=1e9", "arrival_rate=35K", "service_time=150us"], "response_time,0.15"),
        (["pav_iosq", "aliases=1e9", "ssch_rate=1000", "service_time=1ms"], "iosq,0"),
        (["erlang_cdf", "shape=1e9", "x=1e9"], "probability,0.5000"),
    ],
    ids=["erlang_c", "erlang_b", "mmc", "pav_iosq", "erlang_cdf"],
)
def test_a_billion_servers_or_stages_is_answered_at_once(tmp_path, args: list[str], answer: str) -> None:
    assert_answer(run(tmp_path, "calc", *args, "--format", "csv"), answer)


def test_an_mmck_chain_of_a_billion_places_is_refused_with_its_estimate(tmp_path) -> None:
    result = run(tmp_path, "calc", "mmck", "servers=2", "capacity=1e9", "arrival_rate=1", "service_time=1ms")
    assert_one_line_error(result, "capacity", "too large to compute", "hours")


# ----- an endless file


@pytest.mark.parametrize("route", ["--catalogue", "QMODEL_CATALOGUE", "check"])
def test_an_endless_device_as_a_catalogue_is_refused_at_once(tmp_path, route: str) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    if route == "check":
        result = run(tmp_path, "check", "/dev/zero")
    elif route == "QMODEL_CATALOGUE":
        result = run(
            tmp_path,
            "calc",
            "mm1",
            "arrival_rate=1",
            "service_time=1ms",
            env={"QMODEL_CATALOGUE": "/dev/zero"},
        )
    else:
        result = run(
            tmp_path, "calc", "mm1", "arrival_rate=1", "service_time=1ms", "--catalogue", "/dev/zero"
        )
    assert_one_line_error(result, "/dev/zero", "longer than 10 MB")


def test_a_fifo_no_one_writes_to_is_read_as_empty_not_waited_on(tmp_path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "fifo.toml")
    result = run(tmp_path, "calc", "my_entry", "x=1", "--catalogue", "fifo.toml")
    assert_one_line_error(result, "no [[formula]] entries")


@pytest.mark.parametrize("expr", ["x / 0", "0**(-1)", "log(x - x)", "x / (x - x)"])
def test_an_output_infinite_whatever_the_inputs_is_one_line_also_under_qmodel_catalogue(tmp_path, expr):
    (tmp_path / "c.toml").write_text(entry(expr=expr), encoding="utf-8")
    assert_one_line_error(
        run(tmp_path, "calc", "my_entry", "x=1", "--catalogue", "c.toml"),
        "infinite whatever the inputs",
        "an expression finite",
    )
    shipped = run(
        tmp_path,
        "calc",
        "mm1",
        "arrival_rate=10",
        "service_time=1",
        env={"QMODEL_CATALOGUE": str(tmp_path / "c.toml")},
    )  # the user's file is read first
    assert_one_line_error(shipped, "c.toml", "infinite whatever the inputs")


@pytest.mark.parametrize(
    "expr",
    [
        "Sum(Sum(1/(k + j + 1)**2, (j, 0, 100000)), (k, 0, 100000))",
        "Sum(Sum(1/(k + j + 1)**2, (j, 0, 1000*x)), (k, 0, 1000*x))",
    ],
)
def test_sums_inside_sums_are_estimated_together_and_refused_before_summing(tmp_path, expr) -> None:
    (tmp_path / "c.toml").write_text(entry(expr=expr), encoding="utf-8")
    assert_one_line_error(
        run(tmp_path, "calc", "my_entry", "x=100", "--catalogue", "c.toml"), "Sums", "1e+10"
    )


def test_sums_inside_sums_of_few_terms_together_are_computed(tmp_path) -> None:
    (tmp_path / "c.toml").write_text(entry(expr="Sum(Sum(1, (j, 0, x)), (k, 0, x))"), encoding="utf-8")
    answer = run(tmp_path, "calc", "my_entry", "x=9", "--format", "csv", "--catalogue", "c.toml")
    assert_answer(answer, "y,100")
