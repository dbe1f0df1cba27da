"""A planner's own catalogue files: entries beside the shipped ones, compiled once and cached.

A user catalogue file has the format of ``formulas/*.toml``: ``[[formula]]``
entries, and optionally ``[symbols]`` and ``[constraints]`` tables of its own;
its entries may reference the shipped shared symbols and constraints and call
the shipped function entries (``WritePenalty(raid_level)``,
``MMCWait(servers, offered_load, service_time)``). An id the shipped catalogue
already has is refused unless the entry says ``override = true`` (and a
shipped function entry, which other entries call, is never overridden).

The file is untrusted data: its expressions go through the safe parser of
:mod:`qmodel.catalogue.expressions` and the unit check, and nothing in it is
imported or run. The numpy code generated from it is cached under
``$XDG_CACHE_HOME/qmodel`` (``~/.cache/qmodel``), one file per set of catalogue
paths, valid while the files' content, qmodel's version and the shipped
generated module are those it was made from; once a file has
been compiled (by ``qmodel check`` or a first use), a quick answer from it
reads the cached module and imports no sympy, as a shipped entry does.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from qmodel import limits
from qmodel.catalogue.loader import (
    Formula,
    SharedTables,
    forget_user_entries,
    parse_entry,
    raw_entries,
    refuse_call_cycles,
    use_user_entries,
    user_entries,
)
from qmodel.errors import CatalogueError, InputError

CACHE_FORMAT = "2"  # bump when the generated module's shape changes
MAX_FILE_BYTES = 10_000_000
_KEY_LINE = "# qmodel user catalogue, key "  # a cached module's first line: its key, read before it runs
_MODULES: dict[str, ModuleType] = {}  # user entry id → its compiled module
# The first use of a set of files (parse, unit check, generate, import its module), per entry; measured by
# bench/check_cost.py (issue 33, CPU, loaded 2-core machine): 0.5 to 1.1 ms an entry of one output (200 and
# 800 entries); 2,000 entries of ranks.toml's size (4 outputs) 5.5 s more than when cached (2.7 ms an
# entry, the rate taken), 215 MB against 75 MB for 20 of them (70 KB an entry)
SECONDS_PER_ENTRY_COMPILE = 3e-3
BYTES_PER_ENTRY_COMPILE = 70e3


def cache_dir() -> Path:
    """Where compiled user catalogues are kept: ``$XDG_CACHE_HOME/qmodel`` or ``~/.cache/qmodel``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qmodel"


def read_catalogue_file(path: str) -> tuple[str, str]:
    """(path, text) of a user catalogue file; an InputError naming the path if it cannot be read or is
    larger than any catalogue (the shipped one is 0.2 MB)."""
    raw = limits.read_bounded(path, MAX_FILE_BYTES, "catalogue", "a readable TOML file")
    try:
        return path, raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise InputError("catalogue", path, "UTF-8 text", reason=f"not UTF-8 ({error.reason})") from None


def shipped_shared() -> SharedTables:
    """The shipped shared symbols and constraints, from the generated module (no TOML read)."""
    from qmodel.catalogue import _compiled

    return SharedTables(dict(_compiled.SHARED_SYMBOLS), dict(_compiled.SHARED_CONSTRAINTS))


def load_user_files(
    files: list[tuple[str, str]],
) -> tuple[dict[str, Formula], list[tuple[str, dict[str, Any]]]]:
    """The user entries of (path, text) pairs, checked for structure and clashes (no sympy).

    Returns the entries by id and their resolved tables. A duplicate id, an id
    the shipped catalogue has without ``override = true``, an override of a
    shipped function entry, or a function name the shipped catalogue uses is a
    CatalogueError naming the file and entry.
    """
    from qmodel.catalogue import _compiled

    try:
        entries = raw_entries(files, known=shipped_shared())
    except RecursionError:  # tomllib recurses on nested arrays and tables
        paths = ", ".join(path for path, _ in files)
        raise CatalogueError(f"{paths}: TOML nested too deeply to read") from None
    shipped_functions = {e["function"]: i for i, (_, e) in _compiled.ENTRIES.items() if e.get("function")}
    formulas: dict[str, Formula] = {}
    for file, table in entries:
        formula = parse_entry({k: v for k, v in table.items() if k != "override"}, file, builtin=False)
        where = f"{file}: formula {formula.id!r}"
        override = table.get("override", False)
        if not isinstance(override, bool):
            raise CatalogueError(f"{where}: 'override' must be true or false")
        if formula.id in formulas:
            raise CatalogueError(f"{where}: duplicate id (also in {formulas[formula.id].file})")
        if formula.id in _compiled.ENTRIES:
            if not override:
                raise CatalogueError(
                    f"{where}: the shipped catalogue has this id; write override = true "
                    "in the entry to replace it, or choose another id"
                )
            function = _compiled.ENTRIES[formula.id][1].get("function")
            if function:
                raise CatalogueError(
                    f"{where}: the shipped entry is the function {function}, which other "
                    "entries call; it cannot be overridden: choose another id and function"
                )
        elif override:
            raise CatalogueError(
                f"{where}: override = true, but the shipped catalogue has no entry {formula.id!r}"
            )
        if formula.function in shipped_functions:
            raise CatalogueError(
                f"{where}: function {formula.function!r} is the shipped entry "
                f"{shipped_functions[formula.function]!r}'s; choose another name"
            )
        formulas[formula.id] = formula
    refuse_call_cycles(formulas)
    known = {*_compiled.ENTRIES, *formulas}
    for formula in formulas.values():
        for prop in formula.properties:
            other = prop.other.split(".")[0]
            if prop.kind == "equals" and other not in known:
                raise CatalogueError(
                    f"{formula.file}: formula {formula.id!r}: property refers to unknown entry {other!r}"
                )
    return formulas, entries


def _key(files: list[tuple[str, str]]) -> str:
    """What a compiled module depends on: the files' text, qmodel's version and the shipped module."""
    from qmodel import __version__
    from qmodel.catalogue import _compiled

    digest = hashlib.sha256(f"{CACHE_FORMAT}\0{__version__}\0".encode())
    digest.update(Path(_compiled.__file__).read_bytes())
    for _, text in files:
        digest.update(b"\0" + text.encode("utf-8"))
    return digest.hexdigest()


def _cache_file(files: list[tuple[str, str]]) -> Path:
    """The cache file of a set of catalogue files: one per set of paths, rewritten when they change."""
    paths = "\0".join(os.path.abspath(path) for path, _ in files)
    return cache_dir() / f"catalogue-{hashlib.sha256(paths.encode()).hexdigest()[:32]}.py"


def symbolic_catalogue(formulas: dict[str, Formula]):
    """The shipped catalogue with the user's entries, for sympy work (checks, ``formula show``)."""
    from qmodel.catalogue.loader import load_catalogue
    from qmodel.catalogue.symbolic import SymbolicCatalogue

    return SymbolicCatalogue({**load_catalogue(), **formulas})


def compile_user(
    formulas: dict[str, Formula], entries: list[tuple[str, dict[str, Any]]], files: list[tuple[str, str]]
) -> ModuleType:
    """The compiled module of the user's entries: from the cache when the files are unchanged,
    else parsed (safe parser, unit check), generated and cached. Only the second imports sympy."""
    key = _key(files)
    tables = {table["id"]: table for _, table in entries}
    path = _cache_file(files)
    if _cached_key(path) == key:  # checked before the module runs: a stale or foreign file is not run
        try:
            module = _load_module(path, key)
        except Exception:  # a damaged cache file (disk full, killed mid-write): compile again
            module = None
        made = (getattr(module, "KEY", None), getattr(module, "ENTRIES", None))
        if module is not None and made == (key, tables):
            return module
    from qmodel.catalogue.codegen import generate_user
    from qmodel.catalogue.loader import load_catalogue

    text = f"{_KEY_LINE}{key}\n" + generate_user(formulas, entries, load_catalogue(), key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)
        # the bytecode of the previous version could pass for current (same second, same size)
        Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)
    except OSError:  # no writable cache: compile into a scratch folder, every run
        with tempfile.TemporaryDirectory() as scratch_folder:
            scratch = Path(scratch_folder) / path.name
            scratch.write_text(text, encoding="utf-8")
            return _load_module(scratch, key)
    return _load_module(path, key)


def _cached_key(path: Path) -> str | None:
    """The key on the first line of a cached module (``_KEY_LINE``), None if there is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline(200).rstrip("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return first.removeprefix(_KEY_LINE) if first.startswith(_KEY_LINE) else None


def _load_module(path: Path, key: str) -> ModuleType:
    name = f"qmodel_user_catalogue_{key[:16]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # a path ending .py always has one: a broken Python
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


class LoadedCatalogues(NamedTuple):
    """User catalogue files read and checked for structure (:func:`load_user_files`), not yet compiled."""

    files: list[tuple[str, str]]  # (path, text)
    formulas: dict[str, Formula]  # the entries by id
    entries: list[tuple[str, dict[str, Any]]]  # their resolved tables

    def compile_seconds(self) -> float:
        """Estimated CPU seconds of compiling the entries (:data:`SECONDS_PER_ENTRY_COMPILE` each): 0 when
        the cache holds them already."""
        if _cached_key(_cache_file(self.files)) == _key(self.files):
            return 0.0
        return len(self.formulas) * SECONDS_PER_ENTRY_COMPILE


def load_catalogues(paths: list[str] | tuple[str, ...]) -> LoadedCatalogues:
    """Read the user catalogue files at ``paths`` and check their structure (no sympy, nothing compiled).

    :raises InputError: a file that cannot be read (CatalogueError: one that is malformed).
    """
    files = [read_catalogue_file(str(path)) for path in paths]
    formulas, entries = load_user_files(files)
    return LoadedCatalogues(files, formulas, entries)


def use_loaded(loaded: LoadedCatalogues, time_limit: bool = True) -> dict[str, Formula]:
    """Compile (or take from the cache) and put to use the entries of :func:`load_catalogues`.

    A first use estimated past the time or memory limit is refused before any compiling
    (:func:`qmodel.limits.refuse_too_large`), unless ``time_limit`` is False (a caller that has
    estimated the work itself, as ``qmodel check`` does).
    """
    count = len(loaded.formulas)
    if time_limit:
        allowed = int(
            min(limits.MEMORY_LIMIT / BYTES_PER_ENTRY_COMPILE, limits.TIME_LIMIT / SECONDS_PER_ENTRY_COMPILE)
        )
        limits.refuse_too_large(
            count * BYTES_PER_ENTRY_COMPILE,
            loaded.compile_seconds(),
            f"catalogue of {count:,} entries to compile",
            f"at most {allowed:,} entries in the files given together (compiled once, then cached)",
        )
    module = compile_user(loaded.formulas, loaded.entries, loaded.files)
    for formula_id in loaded.formulas:
        _MODULES[formula_id] = module
    use_user_entries(loaded.formulas)
    return loaded.formulas


def use_catalogues(paths: list[str] | tuple[str, ...]) -> dict[str, Formula]:
    """Load, check, compile (or take from the cache) and put to use the user catalogue files at
    ``paths``: their entries answer to their ids in every command and in :func:`qmodel.calc`.

    :param paths: the catalogue files (TOML), as ``--catalogue`` takes them.
    :returns: the entries put to use, by id.
    :raises InputError: a file that cannot be read, or whose first use (compiling) is estimated past
        the limits (CatalogueError: one that is malformed).
    """
    return use_loaded(load_catalogues(paths))


def forget_catalogues() -> None:
    """Stop using the user catalogue files put to use so far (the shipped entries answer again)."""
    _MODULES.clear()
    forget_user_entries()


def compiled_module(formula: Formula) -> ModuleType:
    """The generated module that computes ``formula``: the shipped one, or its user catalogue's."""
    if formula.builtin:
        from qmodel.catalogue import _compiled

        return _compiled
    if formula.id not in _MODULES or user_entries().get(formula.id) != formula:
        raise CatalogueError(
            f"{formula.file}: formula {formula.id!r} is not in use: load its file with "
            "use_catalogues() or --catalogue"
        )
    return _MODULES[formula.id]
