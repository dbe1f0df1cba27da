"""MkDocs hook: the reference pages' tables, generated from the code at build time.

A page holds a marker ``<!-- generated: NAME -->``; the hook replaces it with the Markdown of
:data:`GENERATORS` [NAME], built from qmodel's own definitions, so nothing in the reference is
typed twice: the commands and options from the click definitions, the catalogue from
``formulas/*.toml`` through qmodel's loader and ``formula show``, the scenario keys from
:mod:`qmodel.scenario.schema`, the model file's keys from :mod:`qmodel.networks.model`.
``tests/test_docs_reference.py`` imports this file to check that every command option, catalogue
entry and scenario key appears.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import re
from pathlib import Path

import click

from qmodel.catalogue.describe import describe_formula
from qmodel.catalogue.loader import load_catalogue
from qmodel.cli import COMMANDS
from qmodel.networks.model import CLASS_KEYS, STATION_KEYS
from qmodel.scenario.schema import REQUIRED, SCENARIO_KEYS

MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")


def _cell(text: object) -> str:
    """Text made safe for one cell of a Markdown table."""
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
            out.append(f"```text\n{inspect.cleandoc(command.epilog).replace(chr(8) + chr(10), '')}\n```\n")
        rows = []
        for param in command.get_params(ctx):
            if isinstance(param, click.Argument):
                kind = "argument, required" if param.required else "argument"
                rows.append([f"`{param.human_readable_name}`", kind])
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                rows.append([f"`{record[0]}`", record[1]])
        if rows:
            out.append(_table(["option", "meaning"], rows))
    return "\n".join(out)


def catalogue_markdown() -> str:
    out = []
    by_file: dict[str, list] = {}
    for formula in load_catalogue().values():
        by_file.setdefault(formula.file, []).append(formula)
    for file in sorted(by_file):
        out.append(f"## formulas/{file}\n")
        for formula in sorted(by_file[file], key=lambda f: f.id):
            shown = io.StringIO()
            with contextlib.redirect_stdout(shown):
                describe_formula(formula, "json")
            entry = json.loads(shown.getvalue())
            out.append(f"### {entry['id']} {{#{entry['id']}}}\n\n{_cell(entry['title'])}\n")
            if entry["symbols"]:
                out.append(_table(["input", "meaning", "unit", "domain", "default"],
                                  [[f"`{s['name']}`", s["meaning"], s["unit"], s["domain"], s["default"]]
                                   for s in entry["symbols"]]))
            if entry["outputs"]:
                out.append(_table(["output", "meaning", "unit", "expression"],
                                  [[f"`{o['name']}`", o["meaning"], o["unit"], f"`{o['expr']}`"]
                                   for o in entry["outputs"]]))
            for heading, key in (("Constraints", "constraints"), ("Properties (tested)", "properties")):
                if entry[key]:
                    out.append(f"**{heading}**\n\n" + "\n".join(f"- {_cell(x)}" for x in entry[key]) + "\n")
            for heading, key in (("Computed by", "algorithm"), ("Computed by", "model")):
                if entry[key]:
                    out.append(f"**{heading}**: `{entry[key]}` (qmodel.catalogue.registry)\n")
            out.append(f"**Source**: {_cell(entry['source'])}\n")
            if entry["notes"]:
                out.append(f"**Notes**: {_cell(entry['notes'])}\n")
    return "\n".join(out)


TABLE_TITLES = {
    "": "Top level", "goal": "[goal]", "member": "[[member]]", "cf": "[[cf]]", "path": "[[path]]",
    "link": "[link.NAME]", "disk": "[disk]", "disk.io": "[disk] read = { ... } and write = { ... }",
    "conversion": "[conversion]", "locks": "[locks]", "distribution": "[distribution]",
}


def scenario_keys_markdown() -> str:
    out = []
    for table, title in TABLE_TITLES.items():
        rows = [[f"`{k.name}`", k.type, k.unit, "**required**" if k.default == REQUIRED else k.default,
                 k.meaning, k.source] for k in SCENARIO_KEYS if k.table == table]
        header = ["key", "type", "unit", "default", "meaning", "where from"]
        out.append(f"### {title}\n\n" + _table(header, rows))
    return "\n".join(out)


def model_keys_markdown() -> str:
    return _table(["table", "keys"], [["[[station]]", ", ".join(f"`{k}`" for k in sorted(STATION_KEYS))],
                                      ["[[class]]", ", ".join(f"`{k}`" for k in sorted(CLASS_KEYS))]])


GENERATORS = {
    "commands": commands_markdown,
    "catalogue": catalogue_markdown,
    "scenario-keys": scenario_keys_markdown,
    "model-keys": model_keys_markdown,
}


# files of the repository shown in the site without a copy in docs/: site path → repository path
SHOWN_FILES = {"img/gdps-env3.png": "casebooks/scenarios/gdps-env3.png"}


def on_files(files, config):
    """MkDocs event: the repository's own images added to the site (one home for each file)."""
    from mkdocs.structure.files import File  # the hook runs inside mkdocs only

    root = Path(config["config_file_path"]).parent
    for site_path, repository_path in SHOWN_FILES.items():
        files.append(File.generated(config, site_path, abs_src_path=str(root / repository_path)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: each marker replaced by its generated Markdown."""
    return MARKER.sub(lambda match: GENERATORS[match[1]](), markdown)
