"""The documentation's reference is complete: every command option, catalogue entry and scenario key.

The reference pages are generated at build time by ``docs/_hooks/reference.py`` from the code; these
tests run the same generators and check that nothing the code defines is left out, and that the
scenario reader accepts exactly the keys the schema documents.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import click
import pytest

from qmodel.catalogue.loader import load_catalogue
from qmodel.scenario import spec
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.schema import SCENARIO_KEYS, keys_of

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "docs" / "_hooks" / "reference.py")
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


@pytest.fixture(scope="module")
def commands_page() -> str:
    return reference.commands_markdown()


def test_every_command_and_option_is_in_the_commands_reference(commands_page: str) -> None:
    for path, command in reference.all_commands():
        assert f"## {path} {{#{reference.anchor(path)}}}" in commands_page
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for flag in param.opts + param.secondary_opts:
                    assert flag in commands_page, f"{path}: {flag}"


def test_every_help_text_points_at_its_page_and_the_anchor_exists(commands_page: str) -> None:
    for path, command in reference.all_commands():
        if path == "qmodel formula":
            continue  # a group: its subcommands are documented
        [pointer] = re.findall(r"docs/reference/commands\.md#([a-z-]+)", command.epilog or "")
        assert pointer == reference.anchor(path)
        for page in re.findall(r"docs/[a-z/-]+\.md", command.epilog or ""):
            assert (ROOT / page).is_file(), f"{path}: {page}"


def test_every_catalogue_entry_is_on_its_domain_page_and_linked_from_the_index() -> None:
    index = reference.catalogue_index_markdown()
    for formula in load_catalogue().values():
        domain = formula.file.removesuffix(".toml")
        page = reference.catalogue_markdown(domain)
        assert f"## {formula.id} {{#{formula.id}}}" in page
        assert f"[{formula.id}](catalogue/{domain}.md#{formula.id})" in index
        for name in [*formula.symbols, *(o.name for o in formula.outputs)]:
            assert f"<code>{name}</code>" in page


def test_the_generated_tables_show_no_escaped_bar_and_no_empty_code(commands_page: str) -> None:
    """A '\\|' inside a code cell shows its backslash, and an output computed by an algorithm had an
    empty expression cell (issue 34)."""
    pages = [commands_page, *(reference.catalogue_markdown(d) for d in reference.catalogue_domains())]
    for page in pages:
        assert not re.search(r"`[^`\n]*\\\|", page) and "<code></code>" not in page  # \\| in code
        assert not re.search(r"(?<!`)``(?!`)", page)  # an empty code span
    assert "<code>--format [table&#124;json&#124;csv]</code>" in commands_page


def test_every_scenario_key_is_in_the_scenario_reference() -> None:
    page = reference.scenario_keys_markdown()
    for key in SCENARIO_KEYS:
        assert f"`{key.name}`" in page
    assert set(reference.TABLE_TITLES) == {key.table for key in SCENARIO_KEYS}


def test_the_scenario_reader_accepts_exactly_the_schema_keys() -> None:
    assert spec.TOP_KEYS == keys_of("")
    assert spec.MEMBER_KEYS == keys_of("member")
    assert spec.PATH_KEYS == keys_of("path")
    assert {table: keys for table, keys in spec.SECTION_KEYS.items()} == {
        table: keys_of(table) for table in spec.SECTION_KEYS
    }
    assert set(spec.IO_KEYS) == keys_of("disk.io")


@pytest.mark.parametrize(
    "table, path",
    [
        ("", ()),
        ("goal", ("goal",)),
        ("member", ("member", 0)),
        ("cf", ("cf", 0)),
        ("path", ("path", 0)),
        ("link", ("link", None)),
        ("disk", ("disk",)),
        ("disk.io", ("disk", "read")),
        ("conversion", ("conversion",)),
        ("locks", ("locks",)),
    ],
)
def test_a_key_the_schema_does_not_list_is_refused_with_the_keys_it_does(table: str, path: tuple) -> None:
    data = spec.read_scenario_toml(resolve_scenario("gdps-env2"))
    place = data
    for step in path:
        place = place[next(iter(place))] if step is None else place[step]
    place["not_a_key"] = 1
    with pytest.raises(spec.ScenarioError) as refused:
        spec.scenario_from_dict(data)
    assert "not_a_key" in str(refused.value) and "unknown key" in str(refused.value)
    for name in keys_of(table):
        assert name in str(refused.value)


def test_the_model_file_reference_lists_every_key() -> None:
    page = reference.model_keys_markdown()
    for key in reference.STATION_KEYS | reference.CLASS_KEYS | reference.ROUTING_KEYS:
        assert f"`{key}`" in page
