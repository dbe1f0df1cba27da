"""MkDocs hook: the reference pages' tables, generated from the code at build time.

A page holds a marker ``<!-- generated: NAME -->``; the hook replaces it with the Markdown of
``GENERATORS[NAME]``, built from qmodel's own definitions, so nothing in the reference is
typed twice: the commands and options from the click definitions, the catalogue from
``formulas/*.toml`` through qmodel's loader and ``formula show`` (an index on its page, one
generated page per domain, ``reference/catalogue/DOMAIN.md``, put in the navigation here), the
scenario keys from ``qmodel.scenario.schema``, the model file's keys from ``qmodel.networks.model``.
``tests/test_docs_reference.py`` imports this file to check that every command option, catalogue
entry and scenario key appears. The API pages' docstrings name code in Sphinx's roles
(``:func:`x```): the rendered page shows the name alone.
"""

from __future__ import annotations

import contextlib
import functools
import html
import importlib
import inspect
import io
import json
import re

import click

from qmodel.catalogue.describe import describe_formula
from qmodel.catalogue.loader import load_catalogue
from qmodel.cli import COMMANDS
from qmodel.networks.model import CLASS_KEYS, ROUTING_KEYS, STATION_KEYS
from qmodel.scenario.schema import REQUIRED, SCENARIO_KEYS

MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")


class Code(str):
    """A name or an expression for a table cell: HTML code, its ``|`` an entity (a Markdown table's
    ``\\|`` shows its backslash inside code)."""


def _code(text: object) -> Code:
    return Code(f"<code>{html.escape(str(text)).replace('|', '&#124;')}</code>")


def _cell(text: object) -> str:
    """Text made safe for one cell of a Markdown table."""
    if isinstance(text, Code):
        return str(text)
    return str(text).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def anchor(path: str) -> str:
    """The heading id of a command: ``qmodel formula show`` → ``qmodel-formula-show``."""
    return path.replace(" ", "-")


def all_commands() -> list[tuple[str, click.Command]]:
    """Every command as (its path, the click command), subcommands of a group after it."""
    found = []
    for name in sorted(COMMANDS):
        module, attribute = COMMANDS[name]
        command = getattr(importlib.import_module(f"qmodel.cli.{module}"), attribute)
        found.append((f"qmodel {name}", command))
        if isinstance(command, click.Group):
            found += [(f"qmodel {name} {sub}", command.commands[sub]) for sub in sorted(command.commands)]
        named = getattr(command, "subcommands", None)  # commands named in place of an argument
        if named is not None:
            found += [(f"qmodel {name} {sub}", each) for sub, each in sorted(named().items())]
    return found


def commands_markdown() -> str:
    out = []
    for path, command in all_commands():
        ctx = click.Context(command, info_name=path)
        help_text = inspect.cleandoc(command.help or "").replace("\b\n", "")
        out.append(f"## {path} {{#{anchor(path)}}}\n")
        usage = " ".join(command.collect_usage_pieces(ctx))
        out.append(f"```text\nUsage: {path} {usage}\n\n{help_text}\n```\n")
        if command.epilog:
            paragraphs = inspect.cleandoc(command.epilog).replace("\n\b\n", "\n\n").replace("\b\n", "")
            out.append(f"```text\n{paragraphs}\n```\n")
        rows = []
        for param in command.get_params(ctx):
            if isinstance(param, click.Argument):
                kind = "argument, required" if param.required else "argument"
                rows.append([_code(param.human_readable_name), kind])
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                rows.append([_code(record[0]), record[1]])
        if rows:
            out.append(_table(["option", "meaning"], rows))
    return "\n".join(out)


@functools.cache
def catalogue_domains() -> dict[str, list]:
    """The catalogue's entries by domain (the formulas/DOMAIN.toml file), each domain's sorted by id."""
    by_domain: dict[str, list] = {}
    for formula in load_catalogue().values():
        by_domain.setdefault(formula.file.removesuffix(".toml"), []).append(formula)
    return {domain: sorted(by_domain[domain], key=lambda f: f.id) for domain in sorted(by_domain)}


def catalogue_index_markdown() -> str:
    """The catalogue's first page: each domain's entries, id and title, linked to their page."""
    out = []
    for domain, entries in catalogue_domains().items():
        out.append(f"## [{domain}](catalogue/{domain}.md) ({len(entries)} entries)\n")
        out.append(
            _table(
                ["entry", "what it answers"],
                [[f"[{f.id}](catalogue/{domain}.md#{f.id})", f.title] for f in entries],
            )
        )
    return "\n".join(out)


def catalogue_markdown(domain: str) -> str:
    """One domain's page: every entry with its inputs, outputs, constraints, properties and source."""
    entries = catalogue_domains()[domain]
    out = [
        f"# Formula catalogue: {domain}\n",
        f"The {len(entries)} entries of `formulas/{domain}.toml`, generated when the site is built "
        "(how to read one: [Formula catalogue](../catalogue.md)).\n",
    ]
    for formula in entries:
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            describe_formula(formula, "json")
        entry = json.loads(shown.getvalue())
        computed = entry["algorithm"] or entry["model"]
        out.append(f"## {entry['id']} {{#{entry['id']}}}\n\n{_cell(entry['title'])}\n")
        if entry["symbols"]:
            out.append(
                _table(
                    ["input", "meaning", "unit", "domain", "default"],
                    [
                        [_code(s["name"]), s["meaning"], s["unit"], s["domain"], s["default"]]
                        for s in entry["symbols"]
                    ],
                )
            )
        if entry["outputs"]:
            out.append(
                _table(
                    ["output", "meaning", "unit", "expression"],
                    [
                        [
                            _code(o["name"]),
                            o["meaning"],
                            o["unit"],
                            _code(o["expr"]) if o["expr"] else f"computed by {computed} (below)",
                        ]
                        for o in entry["outputs"]
                    ],
                )
            )
        for heading, key in (("Constraints", "constraints"), ("Properties (tested)", "properties")):
            if entry[key]:
                out.append(f"**{heading}**\n\n" + "\n".join(f"- {_cell(x)}" for x in entry[key]) + "\n")
        if computed:
            out.append(f"**Computed by**: `{computed}` (qmodel.catalogue.registry)\n")
        out.append(f"**Source**: {_cell(entry['source'])}\n")
        if entry["notes"]:
            out.append(f"**Notes**: {_cell(entry['notes'])}\n")
    return "\n".join(out)


TABLE_TITLES = {
    "": "Top level",
    "goal": "[goal]",
    "member": "[[member]]",
    "cf": "[[cf]]",
    "path": "[[path]]",
    "link": "[link.NAME]",
    "disk": "[disk]",
    "disk.io": "[disk] read = { ... } and write = { ... }",
    "conversion": "[conversion]",
    "locks": "[locks]",
    "distribution": "[distribution]",
}


def scenario_keys_markdown() -> str:
    out = []
    for table, title in TABLE_TITLES.items():
        rows = [
            [
                f"`{k.name}`",
                k.type,
                k.shown_unit,
                "**required**" if k.default == REQUIRED else k.shown_default,
                k.shown_meaning,
                k.source,
            ]
            for k in SCENARIO_KEYS
            if k.table == table
        ]
        header = ["key", "type", "unit", "default", "meaning", "where from"]
        out.append(f"### {title}\n\n" + _table(header, rows))
    return "\n".join(out)


def scenario_sources_markdown() -> str:
    """Every scenario key that takes a number, and where a planner reads it (the schema's source)."""
    rows = [
        [f"`{TABLE_TITLES[k.table]}` `{k.name}`" if k.table else f"`{k.name}`", k.shown_unit, k.source]
        for k in SCENARIO_KEYS
        if k.unit and k.source
    ]
    return _table(["key", "unit", "where a planner reads it"], rows)


def model_keys_markdown() -> str:
    return _table(
        ["table", "keys"],
        [
            ["[[station]]", ", ".join(f"`{k}`" for k in sorted(STATION_KEYS))],
            ["[[class]]", ", ".join(f"`{k}`" for k in sorted(CLASS_KEYS))],
            ["[[routing]]", ", ".join(f"`{k}`" for k in sorted(ROUTING_KEYS))],
        ],
    )


GENERATORS = {
    "commands": commands_markdown,
    "catalogue": catalogue_index_markdown,
    "scenario-keys": scenario_keys_markdown,
    "scenario-sources": scenario_sources_markdown,
    "model-keys": model_keys_markdown,
}


CATALOGUE_PAGE = "reference/catalogue.md"


def on_config(config):
    """MkDocs event: the catalogue's domain pages put under its entry in the navigation."""

    def placed(items: list) -> list:
        out = []
        for item in items:
            title, where = next(iter(item.items())) if isinstance(item, dict) else (None, item)
            if where == CATALOGUE_PAGE:
                item = {
                    title: [
                        {"Overview": CATALOGUE_PAGE},
                        *({domain: f"reference/catalogue/{domain}.md"} for domain in catalogue_domains()),
                    ]
                }
            elif isinstance(where, list):
                item = {title: placed(where)}
            out.append(item)
        return out

    config["nav"] = placed(config["nav"])
    return config


def on_files(files, config):
    """MkDocs event: one generated page per catalogue domain."""
    from mkdocs.structure.files import File  # the hook runs inside mkdocs only

    for domain in catalogue_domains():
        files.append(
            File.generated(config, f"reference/catalogue/{domain}.md", content=catalogue_markdown(domain))
        )
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: each marker replaced by its generated Markdown."""
    return MARKER.sub(lambda match: GENERATORS[match[1]](), markdown)


ROLE = re.compile(r":(?:func|meth|class|mod|data|attr|exc|obj):(<code>)")


def on_page_content(html_text: str, page, config, files) -> str:
    """MkDocs event: a docstring's Sphinx role (``:func:`qmodel.calc```) shown as the name alone."""
    return ROLE.sub(r"\1", html_text)
