"""Varying a scenario, in one place: the dotted keys a --variants header, a [band] point and a fit's
free parameters name (``locks.lock_span``, ``member.G1P2.other``, ``member.*.think_time``,
``path.*.subchannels``, ``path.G1P2.CF1.background_rate``), and the run facts a casebook row sets
(subchannels on every path, Metro Mirror on or off, the castout owner).

Two forms of one vocabulary:

- on a scenario file's tables (its parsed TOML, values as the file writes them: ``"15%"``, ``"8.8s"``):
  :func:`override_column` reads a dotted key, :func:`apply_override` sets it, and the tables are then
  checked as a file is (:func:`qmodel.scenario.spec.scenario_from_dict`): what --variants and [band]
  do, so that every value a user writes passes the one reader;
- on a checked :class:`~qmodel.scenario.spec.Scenario` (values in SI): :func:`with_values`, what a fit
  does at each trial (no text to read, thousands of times), and :func:`with_overrides` for a run's facts.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from qmodel.errors import InputError
from qmodel.scenario.spec import (
    MEMBER_KEYS,
    PATH_KEYS,
    SECTION_KEYS,
    CFPath,
    Member,
    Scenario,
    ScenarioError,
    scenario_from_dict,
)
from qmodel.tables.header import split_header
from qmodel.units import unit_named

# what a variant may override in the one-of-a-kind tables: every number (not the sites, Metro Mirror on
# or off, or the RMF components of reads and writes)
SECTION_OVERRIDES = {
    section: tuple(sorted(keys - {"primary_site", "secondary_site", "metro_mirror", "read", "write"}))
    for section, keys in SECTION_KEYS.items()
}
MEMBER_OVERRIDES = tuple(sorted(MEMBER_KEYS - {"name", "requests"}))
PATH_OVERRIDES = tuple(sorted(PATH_KEYS - {"member", "cf"}))
# the top-level keys a variant may set: the distance, and the route's per-km and fixed time
TOP_OVERRIDES = ("distance", "fibre_speed", "crossing_latency")
# today's hardware and protocols (issue 36) as a variant turns them on or off: a link's type, a CF's
# duplexing of a secondary, cross-invalidation of a pool, CF-to-CF signal service
LINK_OVERRIDES = ("type",)
CF_OVERRIDES = ("signal_service",)  # cf.NAME.KEY
CF_TABLE_OVERRIDES = ("duplexing", "cross_invalidation")  # cf.NAME.KEY.STRUCTURE
KEY_FORMS = (
    ", ".join(TOP_OVERRIDES) + ", member.NAME.KEY, path.MEMBER.CF.KEY, path.*.KEY, link.NAME.type, "
    "cf.NAME.signal_service, cf.NAME.duplexing.STRUCTURE, cf.NAME.cross_invalidation.STRUCTURE, "
    + ", ".join(f"{section}.KEY" for section in SECTION_OVERRIDES)
)


@dataclass(frozen=True)
class Column:
    """An override column: where it is, its header, the scenario key it sets and its unit."""

    index: int
    title: str
    key: tuple[str, ...]  # ("distance",), ("member", NAME, KEY), ("path", MEMBER, CF, KEY), (SECTION, KEY)
    unit: str | None

    @property
    def name(self) -> str:
        return ".".join(self.key)


def _choice(given: str, names: list[str], what: str, title: str, source: str) -> str:
    """The one of ``names`` that ``given`` is, ignoring case; a file-level error naming the column if none."""
    for name in names:
        if name.lower() == given.lower():
            return name
    by_case = {name.lower(): name for name in names}
    close = difflib.get_close_matches(given.lower(), list(by_case), n=1)
    hint = f"; did you mean {by_case[close[0]]}?" if close else ""
    raise InputError(
        f"{source}: column", title, f"a {what}: {', '.join(names)}", reason=f"no {what} {given!r}{hint}"
    )


def override_column(index: int, title: str, raw: dict, source: str) -> Column | None:
    """The override a header names, None for a pass-through column (no dot and not distance);
    InputError for a dotted header that names nothing of the scenario or is no key at all, or an
    unknown unit. A path may be spelt as qmodel's messages spell it: ``path.G1P2→CF1.subchannels``."""
    named = split_header(title.replace("→", "."))
    if named is None:
        if "." not in title:
            return None
        raise InputError(
            f"{source}: column",
            title,
            f"a key with its unit in [] or (), e.g. conversion.threshold [us] (the forms: {KEY_FORMS})",
            reason="not a key",
        )
    parts, unit = named[0].split("."), named[1]
    if len(parts) == 1 and parts[0].lower() not in TOP_OVERRIDES:
        return None
    sections = [*TOP_OVERRIDES, "member", "path", "link", "cf", *SECTION_OVERRIDES]
    section = _choice(parts[0], sections, "section", title, source)
    if section in ("link", "cf"):
        return _hardware_column(index, title, section, parts, unit, raw, source)
    members = [str(m.get("name")) for m in raw.get("member", []) if isinstance(m, dict)]
    paths = [p for p in raw.get("path", []) if isinstance(p, dict)]
    shape = {
        **{top: 1 for top in TOP_OVERRIDES},
        "member": 3,
        "path": 4 if len(parts) == 4 else 3,
    }.get(section, 2)
    if len(parts) != shape or (section == "path" and shape == 3 and parts[1] != "*"):
        form = {"member": "member.NAME.KEY", "path": "path.MEMBER.CF.KEY or path.*.KEY"}
        raise InputError(
            f"{source}: column",
            title,
            form.get(section, f"{section}.KEY") + f" (the forms: {KEY_FORMS})",
            reason=f"{len(parts)} part(s) where {section} needs {shape}",
        )
    if section in TOP_OVERRIDES:
        key: tuple[str, ...] = (section,)
    elif section == "member":
        name = parts[1] if parts[1] == "*" else _choice(parts[1], members, "member", title, source)
        key = ("member", name, _choice(parts[2], list(MEMBER_OVERRIDES), "member key", title, source))
    elif section == "path":
        member = parts[1] if parts[1] == "*" else _choice(parts[1], members, "member", title, source)
        cf = (
            "*"
            if shape == 3 or parts[2] == "*"
            else _choice(parts[2], sorted({str(p.get("cf")) for p in paths}), "CF", title, source)
        )
        if not any(member in ("*", p.get("member")) and cf in ("*", p.get("cf")) for p in paths):
            raise InputError(
                f"{source}: column",
                title,
                "a path of the scenario: " + ", ".join(_path_name(p) for p in paths),
                reason=f"no path {member}→{cf}",
            )
        key = ("path", member, cf, _choice(parts[-1], list(PATH_OVERRIDES), "path key", title, source))
    else:
        key = (section, _choice(parts[1], list(SECTION_OVERRIDES[section]), f"{section} key", title, source))
    if unit is not None and unit_named(unit) is None:
        raise InputError(
            f"{source}: column", title, "a unit such as ms, us, s, km or %", reason=f"unknown unit {unit!r}"
        )
    return Column(index, title, key, unit)


def _hardware_column(
    index: int, title: str, section: str, parts: list[str], unit: str | None, raw: dict, source: str
) -> Column:
    """A column of today's hardware: ``link.NAME.type``, ``cf.NAME.signal_service``,
    ``cf.NAME.duplexing.STRUCTURE`` or ``cf.NAME.cross_invalidation.STRUCTURE``."""
    if section == "link":
        links = sorted(raw.get("link", {})) if isinstance(raw.get("link"), dict) else []
        if len(parts) != 3:
            raise InputError(
                f"{source}: column",
                title,
                f"link.NAME.type (the forms: {KEY_FORMS})",
                reason=f"{len(parts)} part(s) where link needs 3",
            )
        key: tuple[str, ...] = (
            "link",
            _choice(parts[1], links, "link", title, source),
            _choice(parts[2], list(LINK_OVERRIDES), "link key", title, source),
        )
    else:
        cfs = [str(c.get("name")) for c in raw.get("cf", []) if isinstance(c, dict)]
        if len(parts) not in (3, 4):
            raise InputError(
                f"{source}: column",
                title,
                f"cf.NAME.signal_service or cf.NAME.duplexing.STRUCTURE (the forms: {KEY_FORMS})",
                reason=f"{len(parts)} part(s) where cf needs 3 or 4",
            )
        keys = CF_OVERRIDES if len(parts) == 3 else CF_TABLE_OVERRIDES
        key = (
            "cf",
            _choice(parts[1], cfs, "CF", title, source),
            _choice(parts[2], list(keys), "cf key", title, source),
            *parts[3:],
        )
    if unit is not None and unit_named(unit) is None:
        raise InputError(
            f"{source}: column", title, "a unit such as ms, us, s, km or %", reason=f"unknown unit {unit!r}"
        )
    return Column(index, title, key, unit)


def _path_name(path: dict) -> str:
    """A path as people name it: member→CF."""
    return f"{path.get('member')}→{path.get('cf')}"


def apply_override(data: dict, column: Column, value: object) -> None:
    """Set the column's key to ``value`` in the parsed scenario ``data`` (every match of a ``*``)."""
    section, *rest = column.key
    if section in TOP_OVERRIDES:
        data[section] = value
    elif section == "member":
        for table in data.get("member", []):
            if rest[0] in ("*", table.get("name")):
                table[rest[1]] = value
    elif section == "path":
        for table in data.get("path", []):
            if rest[0] in ("*", table.get("member")) and rest[1] in ("*", table.get("cf")):
                table[rest[2]] = value
    elif section == "link":
        data.setdefault("link", {}).setdefault(rest[0], {})[rest[1]] = value
    elif section == "cf":
        for table in data.get("cf", []):
            if table.get("name") == rest[0] and len(rest) == 2:
                table[rest[1]] = value
            elif table.get("name") == rest[0]:
                table[rest[1]] = {**table.get(rest[1], {}), rest[2]: value}
    else:
        data.setdefault(section, {})[rest[0]] = value


def first_refused(
    raw: dict, overrides: list[tuple[Column, object]], where: str
) -> tuple[int, ScenarioError] | None:
    """The first of ``overrides`` (column, value) whose value alone, set in the scenario ``raw`` (its
    parsed TOML, from the file ``where``), the scenario refuses: (its index, the scenario's error); None
    where each alone is taken (it is their combination that is refused). Where a --variants row or a
    [band] point is refused, this names the one value to blame."""
    for index, (column, value) in enumerate(overrides):
        data = copy.deepcopy(raw)
        apply_override(data, column, value)
        try:
            scenario_from_dict(data, where)
        except ScenarioError as alone:
            return index, alone
    return None


# A checked scenario's fields by the dotted key of a one-of-a-kind table, where the field is named
# otherwise than the key (the others are the key's own name: locks.lock_span → lock_span)
_SCENARIO_FIELD = {
    "goal.response_time": "goal_time",
    "goal.share": "goal_share",
    "disk.background_rate": "disk_background",
    "distribution.shape": "shape",
}
_TOP_VALUES = TOP_OVERRIDES[1:]  # top-level keys a fit may set (the distance is asked, never fitted)
_MEMBER_FIELDS = {f.name for f in fields(Member)} - {"name", "site", "requests"}
_PATH_FIELDS = {f.name for f in fields(CFPath)} - {"member", "cf", "link"}


def with_values(scenario: Scenario, values: Mapping[str, float | int | str | bool]) -> Scenario:
    """``scenario`` with each dotted key of ``values`` set, values in SI (s, m, m/s, 1/s; a share as a
    fraction): ``locks.lockable_items``, ``member.G1P1.other`` (``member.*.cpu``: every member),
    ``path.*.subchannels`` or ``path.G1P2.CF1.subchannels``, ``conversion.redispatch``, ``fibre_speed``.

    The same keys as :func:`override_column` reads, on a checked scenario: no value is read from text
    or checked again (a fit sets numbers it chose within their bounds). InputError for a key that names
    nothing of the scenario.

    :param scenario: the scenario to vary (unchanged).
    :param values: dotted key → value in SI units.
    :returns: a new scenario.
    """
    for key, value in values.items():
        scenario = _with_value(scenario, key, value)
    return scenario


def _with_value(scenario: Scenario, key: str, value: float | int | str | bool) -> Scenario:
    parts = key.split(".")
    names = [m.name for m in scenario.members]
    if parts[0] == "member" and len(parts) == 3 and parts[2] in _MEMBER_FIELDS:
        if parts[1] != "*" and parts[1] not in names:
            raise InputError("key", key, "member.NAME.KEY with NAME one of " + ", ".join(names))
        change: dict[str, Any] = {parts[2]: value}
        return replace(
            scenario,
            members=tuple(replace(m, **change) if parts[1] in ("*", m.name) else m for m in scenario.members),
        )
    if parts[0] == "path" and len(parts) in (3, 4) and parts[-1] in _PATH_FIELDS:
        member, cf = (parts[1], parts[2]) if len(parts) == 4 else ("*", "*")
        if (len(parts) == 3 and parts[1] != "*") or not any(
            member in ("*", p.member) and cf in ("*", p.cf) for p in scenario.paths
        ):
            raise InputError("key", key, "path.MEMBER.CF.KEY or path.*.KEY of a path of the scenario")
        change = {parts[-1]: value}
        return replace(
            scenario,
            paths=tuple(
                replace(p, **change) if member in ("*", p.member) and cf in ("*", p.cf) else p
                for p in scenario.paths
            ),
        )
    if len(parts) == 1 and key in _TOP_VALUES:
        change = {key: value}
        return replace(scenario, **change)
    if len(parts) == 2 and parts[1] in SECTION_KEYS.get(parts[0], ()):
        field = _SCENARIO_FIELD.get(key, parts[1])
        if field in {f.name for f in fields(Scenario)}:
            change = {field: value}
            return replace(scenario, **change)
    raise InputError("key", key, f"a dotted scenario key: {KEY_FORMS}")


def with_castout_owner(scenario: Scenario, owner: str) -> Scenario:
    """``scenario`` with ``owner`` as its castout owner (``disk.castout_owner``: the owner's reads pay
    the castout IOSQ), as a variant setting that key gives. Which DB2 owns castout is the first to
    open a page set for update (the study's "DB2 Background Information"): a fact of the run's
    configuration, not a measured time. The paths' ``background_rate`` stays as the file gives it."""
    names = [m.name for m in scenario.members]
    if scenario.castout_owner is None:
        raise InputError("castout_owner", owner, "left out: the scenario names no castout owner ([disk])")
    if owner not in names:
        raise InputError("castout_owner", owner, "one of " + ", ".join(names))
    return replace(scenario, castout_owner=owner)


def with_overrides(
    scenario: Scenario, subchannels: int, metro_mirror: str, castout_owner: str = ""
) -> Scenario:
    """The scenario with every path's ``subchannels`` (if not 0), Metro Mirror "on"/"off" (if given) and
    its castout owner (if given: :func:`with_castout_owner`)."""
    if castout_owner:
        scenario = with_castout_owner(scenario, castout_owner)
    if subchannels:
        scenario = replace(scenario, paths=tuple(replace(p, subchannels=subchannels) for p in scenario.paths))
    if metro_mirror:
        if metro_mirror not in ("on", "off"):
            raise InputError("metro_mirror", metro_mirror, "on or off (or left out: as the file says)")
        scenario = replace(
            scenario,
            metro_mirror=metro_mirror == "on",
            pprc_overhead=scenario.pprc_overhead if metro_mirror == "on" else 0.0,
        )
    return scenario
