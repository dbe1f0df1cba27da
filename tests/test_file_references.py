"""No comment or docstring names a file that does not exist (issue 31).

A file named in a comment or docstring of the Python sources (qmodel/, tests/, bench/, docs/_hooks/) or
in a comment of the shipped TOML files (formulas/, casebooks/) must be one of the repository's: a path
(``qmodel/algorithms/queueing.py``, ``scenario/compose.py``) ends an existing file's path; a bare name
(``exact.py``) is an existing file's name. Not files of the repository, and so not checked: a placeholder
(a stem in capitals: ``OUT.xlsx``, ``FILE.toml``, ``casebooks/NAME.toml``), a file the module itself
makes (its name is a string in the module, as a test's temporary file is), a study's text (``.txt``: the
studies cited live beside the repository, not in it).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|toml|md|csv|cfg|yml|json|xlsx))\b")
SOURCES = ("qmodel", "tests", "bench", "docs/_hooks")
DATA = ("formulas", "casebooks")
SKIPPED = {".git", ".venv", "site", "__pycache__", "build"}


def repository_files() -> list[str]:
    return [
        path.relative_to(ROOT).as_posix()
        for path in ROOT.rglob("*")
        if path.is_file() and not SKIPPED & set(path.relative_to(ROOT).parts)
    ]


def python_notes(source: str) -> list[tuple[int, str]]:
    """(line, text) of each comment and docstring of a module."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    notes = [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                notes.append((node.body[0].lineno, docstring))
    return notes


def own_strings(source: str) -> set[str]:
    """The string constants of a module: the files it makes itself."""
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def exists(name: str, files: list[str]) -> bool:
    if "/" in name:
        return any(path == name or path.endswith(f"/{name}") for path in files)
    return any(path.rpartition("/")[2] == name for path in files)


def placeholder(name: str) -> bool:
    stem = name.rpartition("/")[2].partition(".")[0]
    return stem.isupper() or any(part.isupper() and len(part) > 1 for part in name.split("/")[:-1])


def unknown_files() -> list[str]:
    files = repository_files()
    found = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            made = own_strings(source)
            found += [
                f"{path.relative_to(ROOT)}:{line}: {name}"
                for line, text in python_notes(source)
                for name in NAMED.findall(text)
                if not exists(name, files) and not placeholder(name) and name not in made
            ]
    for folder in DATA:
        for path in sorted((ROOT / folder).rglob("*.toml")):
            for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                comment = text.partition("#")[2]  # a key's value may hold a # of its own: then more is read
                found += [
                    f"{path.relative_to(ROOT)}:{line}: {name}"
                    for name in NAMED.findall(comment)
                    if not exists(name, files) and not placeholder(name)
                ]
    return found


def test_every_file_a_comment_or_docstring_names_exists() -> None:
    assert unknown_files() == []


def test_a_name_that_is_no_file_is_found() -> None:
    files = repository_files()
    assert exists("qmodel/algorithms/queueing.py", files) and exists("scenario/compose.py", files)
    assert exists("exact.py", files) and not exists("qmodel/queueing.py", files)
    assert not exists("docs-networks.md", files)
    assert placeholder("OUT.xlsx") and placeholder("casebooks/NAME.toml") and not placeholder("ranks.toml")
