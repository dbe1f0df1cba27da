"""qmodel's data files say their format (issue 31): ``format_version`` in every formula catalogue,
casebook and scenario file, one helper checking it for the three loaders
(:func:`qmodel.tomlread.format_checked`), a one-line error for a version this qmodel does not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from qmodel.catalogue.loader import load_files
from qmodel.catalogue.user import load_user_files
from qmodel.errors import InputError
from qmodel.scenario import load_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.tomlread import FORMAT_KEY, FORMAT_VERSIONS, format_checked, read_toml
from qmodel.validation.casebook import load_casebook, shipped_casebooks

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(
    [*ROOT.glob("formulas/*.toml"), *ROOT.glob("casebooks/*.toml"), *ROOT.glob("casebooks/scenarios/*.toml")]
)
USER_ENTRY = ROOT / "tests" / "catalogue" / "data" / "ranks.toml"


def test_every_shipped_data_file_says_a_format_this_qmodel_reads() -> None:
    assert len(SHIPPED) >= 15
    for path in SHIPPED:
        assert read_toml(path).get(FORMAT_KEY) in FORMAT_VERSIONS, path.name


def test_a_file_without_the_key_is_read_as_version_one_and_the_key_is_not_a_table() -> None:
    assert format_checked({"title": "x"}, "a.toml") == {"title": "x"}
    assert format_checked({FORMAT_KEY: 1, "title": "x"}, "a.toml") == {"title": "x"}


@pytest.mark.parametrize("version", [2, 0, "1", 1.5, True])
def test_an_unknown_version_is_refused_in_one_line_naming_the_file(version) -> None:
    with pytest.raises(InputError) as refused:
        format_checked({FORMAT_KEY: version}, "site.toml")
    message = str(refused.value)
    assert message.startswith(f"site.toml: {FORMAT_KEY} = {version!r}") and "\n" not in message
    assert "allowed: 1" in message


def versioned(text: str, version: int) -> str:
    """A data file's text with its format_version line set to ``version``."""
    line = f"{FORMAT_KEY} = 1\n"
    assert line in text
    return text.replace(line, f"{FORMAT_KEY} = {version}\n", 1)


def test_the_scenario_reader_checks_the_version(tmp_path) -> None:
    shipped = resolve_scenario("gdps-env2")
    unversioned = tmp_path / "unversioned.toml"
    text = shipped.read_text(encoding="utf-8")
    unversioned.write_text(text.replace(f"{FORMAT_KEY} = 1\n", ""), encoding="utf-8")
    assert repr(load_scenario(unversioned)) == repr(load_scenario(shipped))  # arrays: compared as shown
    newer = tmp_path / "newer.toml"
    newer.write_text(versioned(text, 2), encoding="utf-8")
    with pytest.raises(InputError, match=rf"^newer\.toml: {FORMAT_KEY} = 2 "):
        load_scenario(newer)


def test_the_casebook_loader_checks_the_version(tmp_path) -> None:
    path = shipped_casebooks()["gdps-pprc-100km-2006"]
    with pytest.raises(InputError, match=rf"^{path.name}: {FORMAT_KEY} = 2 "):
        load_casebook(path, versioned(path.read_text(encoding="utf-8"), 2))


def test_the_catalogue_loaders_check_the_version() -> None:
    shipped = ROOT / "formulas" / "queues.toml"
    with pytest.raises(InputError, match=rf"^queues\.toml: {FORMAT_KEY} = 2 "):
        load_files([("queues.toml", versioned(shipped.read_text(encoding="utf-8"), 2))])
    own = f"{FORMAT_KEY} = 3\n" + USER_ENTRY.read_text(encoding="utf-8")
    with pytest.raises(InputError, match=rf"^ranks\.toml: {FORMAT_KEY} = 3 "):
        load_user_files([(str(USER_ENTRY), own)])
