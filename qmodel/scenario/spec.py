"""A scenario file: a Parallel Sysplex configuration at a distance, in the words of the field.

Layout (every time, distance and speed with its unit; counts as bare numbers, shares as 0.9 or 90%)::

    title = "GDPS/PPRC Environment 3"
    sites = ["site1", "site2"]
    distance = "0km..100km"                 # between the sites: a value, a list (ascending) or a range
    crossing_latency = "138us"              # optional: what the route's equipment (DWDM) adds per round trip

    [goal]                                   # WLM goal: share of transactions within a time
    response_time = "125ms"
    share = "90%"

    [[member]]                               # a z/OS image running the workload
    name = "G1P1"
    site = "site1"
    logical_cps = 8
    terminals = 100                          # TPNS terminals (a closed population) ...
    think_time = "8.7s"                      # ... with their think time
    cpu = "20ms"                             # CPU per transaction besides CF spin
    other = "12ms"                           # response time no step of the model explains
    sync_reads = 27.7                        # synchronous reads per transaction
    log_writes = 3.7                         # synchronous log writes per transaction
    requests = { LOCK1 = 54.4, GBP8P = 30.0, GBP8S = 10.0 }   # CF requests per transaction
    tpno_share = "78%"                       # share of those requests the transaction waits for
    # the profile (other, sync_reads, log_writes, requests, tpno_share) is required, none is
    # assumed: "0ms", 0, {} or "100%" say so where that is what was measured

    [[cf]]
    name = "CF1"
    site = "site1"
    structures = { LOCK1 = "lock", GBP8P = "cache" }
    [[cf]]
    name = "CF2"
    site = "site2"
    structures = { GBP8S = "secondary of GBP8P" }   # duplexed: written with its primary

    [[path]]                                 # a member's connection to a CF
    member = "G1P1"
    cf = "CF1"
    link = "internal"                        # a [link.NAME] below
    subchannels = 7
    background_rate = 0                      # requests per second not driven by the transactions (castout)

    [link.internal]                          # base service at 0 km, by structure kind
    sync = { lock = "6.8us", cache = "9.4us" }
    async = { lock = "272us", cache = "210us" }
    converted = { cache = "90%" }            # share already async at 0 km (default 0)

    [disk]
    primary_site = "site1"
    secondary_site = "site2"
    metro_mirror = true
    pprc_overhead = "0.4ms"
    read = { conn = "0.1ms", disc = "0ms", pend = "0.1ms", iosq = "0ms" }
    write = { conn = "0.2ms", disc = "0ms", pend = "0.1ms", iosq = "0ms" }
    # optional: IOSQ computed instead of given (pav_iosq: M/M/c with 1 + aliases per volume; iosq
    # above then 0ms or left out) in balance with the throughput it leaves
    # volumes = 40; aliases = 3; background_rate = 212    # SSCH/s of other work, served like writes
    # optional: IOSQ on the castout owner's synchronous reads, castout_iosq × its castout (DBM1) write
    # response (castout_write at 0 km, with the Metro Mirror cost and distance added as for a write)
    # castout_owner = "G1P1"; castout_iosq = 0.23
    # castout_write = { conn = "0.4ms", disc = "0.3ms", pend = "0.1ms", iosq = "0.1ms" }

    [conversion]                             # CF sync → async (estimate: z/OS's heuristic)
    threshold = "150us"
    redispatch = "0us"
    async_cpu = "20us"

    [locks]                                  # lock contention (Tay's model): required
    lockable_items = 2000                    # or lockable_items = inf: no lock contention
    resolution_round_trips = 2
    lock_span = "100%"                       # locks taken over the last 100% of the execution

    [distribution]                           # the variable part of the response time
    shape = 2                                # gamma shape, whole or not (1: exponential; whole: Erlang)
                                             # (a [[member]]'s own shape = 0.8 takes its place there)

    [[calibration]]                          # what was fitted, on which rows (free text)
    parameter = "member.other"
    fitted_on = "0 km column"

    [band]                                   # optional: every answer re-solved at these points
    method = "ends of the fitted parameters' 95% intervals"           # how they were chosen (text)
    points = [ { "locks.lockable_items" = 650, "locks.lock_span" = "15%" },   # overrides, as the
               { "locks.lockable_items" = 740, "locks.lock_span" = "24%" } ]  # --variants headers
    error = { response_time = "24%", throughput = "1.7%" }   # optional: the model's own error

Nothing in the file is evaluated: names are looked up in the file itself,
values are read by :func:`qmodel.units.parse_value`. Every error names the key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from qmodel.errors import CatalogueError, InputError
from qmodel.safetext import name_refused
from qmodel.scenario.files import fit_path, resolve_scenario, with_fitted
from qmodel.scenario.schema import SCENARIO_KEYS, ScenarioKey, key_of, keys_of
from qmodel.studies.hardware import DUPLEX_MODES, LINK_TYPES, METRO_MIRROR_PROTOCOLS, check_duplex_mode
from qmodel.tomlread import format_checked, read_toml
from qmodel.units import (
    UNITS,
    bare_number,
    decimal_comma,
    parse_list,
    parse_value,
    refuse_decimal_comma,
    split_number,
    split_range,
)

STRUCTURE_KINDS = ("lock", "cache", "list")
SECONDARY = "secondary of "
# the accepted keys, from the one table that also documents them (qmodel.scenario.schema)
TOP_KEYS = keys_of("")
MEMBER_KEYS = keys_of("member")
PATH_KEYS = keys_of("path")
# the keys of the scenario's one-of-a-kind tables
SECTION_KEYS = {table: keys_of(table) for table in ("goal", "locks", "conversion", "disk", "distribution")}
IO_KEYS = tuple(key.name for key in SCENARIO_KEYS if key.table == "disk.io")  # the schema's order: IOTimes's
MAX_DISTANCES = 100_000
# What a scenario file accepts, by dimension. A time, distance or speed needs its unit there (a bare
# number is refused), so only forms with a unit are shown; the command line, which reads a bare
# number in the option's unit, keeps the unit dialect's own texts.
FILE_FORMS = {
    "count": "a number, e.g. 27.98 or 35K",
    "rate": "a rate per second, e.g. 415 or 1.2K",
    "ratio": "a share, e.g. 95% or 0.95",
    "time": "a time with its unit, e.g. 8.8s, 0.4ms or 150us",
    "length": "a distance with its unit, e.g. 70km",
    "speed": "a speed with its unit, e.g. 200000km/s",
}
# plausible magnitudes of a nonzero value, SI, beyond which the model's arithmetic over- or underflows: a
# time from a picosecond to about 12 days, counts and rates up to 10^12, a signal speed in fibre or copper
# from 1,000 km/s to light's
PLAUSIBLE = {"time": (1e-12, 1e6), "count": (0.0, 1e12), "rate": (0.0, 1e12), "speed": (1e6, 299_792_458.0)}
FILE_DISTANCES = "one distance with its unit (70km), a list (20,40,70km) or a range START..STOP (0..100km)"
# What each part of a member's profile is, said where it is missing: none is assumed.
PROFILE_FORMS = {
    "other": 'the response time no step of the model explains, e.g. "4ms" ("0ms" for none)',
    "sync_reads": "synchronous reads per transaction, e.g. 27.98 (0 for none)",
    "log_writes": "synchronous log writes per transaction, e.g. 3.77 (0 for none)",
    "requests": "CF requests per transaction by structure, e.g. { LOCK1 = 54.4, GBPP = 71.4 } ({} for none)",
    "tpno_share": 'the share of CF requests the transaction waits for, e.g. "78%" ("100%" for all)',
}
LOCKS_FORM = (
    "a [locks] table: lockable_items, resolution_round_trips and lock_span, "
    "or lockable_items = inf for no lock contention"
)
LOCKABLE_FORM = (
    "the lock model's hot set, e.g. 4250, or inf for no lock contention (or measured_wait: "
    "the lock contention measured per transaction, to infer it from)"
)
ROUND_TRIPS_FORM = "XCF round trips that resolve a global lock contention, e.g. 2"
BAND_WEIGHTS_FORM = (
    "a list of weights from 0 to 1, one per point, summing to at most 1 (the scenario's own "
    "answer weighs the rest), e.g. [0.1667, 0.1667]"
)
BAND_POINTS_FORM = 'a list of tables of dotted scenario keys, e.g. [{ "locks.lock_span" = "15%" }]'
LOCK_SPAN_FORM = 'the last share of the execution over which locks are taken, e.g. "20%" ("100%": all of it)'


class ScenarioError(InputError):
    """A value of a scenario file refused. Besides InputError's fields: ``where``, the file; ``key``, the
    value's name as the file gives it (``member G1P2.think_time``, ``path G1P2→CF1.subchannels``,
    ``distance``), which ``parameter`` is the two of (``where: key``); ``unit``, where a bare number is
    the fault, the unit it needs (``s``, ``km``), else "". So a caller that set the value from elsewhere
    (a --variants cell) can name its own source and say how to write it there."""

    def __init__(
        self, where: str, key: str, value: object, allowed: str, *, reason: str = "", unit: str = ""
    ) -> None:
        self.where, self.key, self.unit = where, key, unit
        super().__init__(f"{where}: {key}", value, allowed, reason=reason)


def _unit_missing(refuse, typed: str, unit: str) -> ScenarioError:
    """A bare number where a unit is needed, with the value written with it (``"8.8s"``)."""
    return refuse(
        typed,
        f'a value with its unit, e.g. "{typed.strip()}{unit}"',
        reason="a bare number is ambiguous here: write the unit",
        unit=unit,
    )


@dataclass(frozen=True)
class Member:
    """A z/OS image running the workload: its site, CPs, terminals and per-transaction profile.

    Times in s, rates in 1/s (SI); counts per transaction.
    """

    name: str
    site: str
    logical_cps: int
    terminals: int
    think_time: float
    cpu: float
    other: float
    sync_reads: float
    log_writes: float
    requests: dict[str, float]
    tpno_share: float
    shape: float | None = None  # gamma shape of its response time's variable part; None: [distribution]'s
    arrival_rate: float | None = None  # 1/s: an open workload (terminals 0, think_time 0); None: closed

    @property
    def open(self) -> bool:
        """Whether its transactions arrive at a given rate (open) rather than from terminals (closed)."""
        return self.arrival_rate is not None


@dataclass(frozen=True)
class Structure:
    """A CF structure: its CF, kind, and for a duplexed secondary the primary it is written with."""

    name: str
    cf: str
    kind: str
    primary: str = ""


@dataclass(frozen=True)
class CFPath:
    """A member's connection to a CF: link type, subchannels, requests not driven by transactions (1/s)."""

    member: str
    cf: str
    link: str
    subchannels: int
    background_rate: float


@dataclass(frozen=True)
class IOTimes:
    """RMF components of one I/O at 0 km, s."""

    conn: float
    disc: float
    pend: float
    iosq: float


@dataclass(frozen=True)
class LockMeasurement:
    """Lock contention as measured: ``wait`` s per transaction (the members together, throughput-weighted;
    DB2 accounting class 3 lock/latch and global contention) at ``distance`` m between the sites."""

    wait: float
    distance: float


@dataclass(frozen=True)
class BandSpec:
    """A scenario's band as the file gives it: what it is made of (``method``, text), each point's
    overrides, dotted scenario keys as the --variants headers write them with values as the file has them
    (``{"locks.lock_span": "15%"}``), each point's weight (empty: the scenario and its points alike), and
    the distance the scenario's members were measured and fitted at (None: nothing measured). The keys
    and values are checked, and the points solved, by :mod:`qmodel.scenario.band` (the --variants
    override, above this layer)."""

    method: str
    points: tuple[dict[str, object], ...]
    weights: tuple[float, ...] = ()
    measured_at: float | None = None  # m


@dataclass(frozen=True)
class Protocols:
    """Today's hardware and protocols (issue 36) as the file gives them; every default is what the
    study's files describe (the facts and sources: :mod:`qmodel.studies.hardware`). Times in s."""

    link_types: dict[str, str] = field(default_factory=dict)  # [link.NAME] -> type; none: reach unchecked
    mirror_protocol: str = "pre-deposit"  # Metro Mirror: one round trip per write
    zhyperwrite: bool = False  # log writes to primary and secondary at once
    duplexing: dict[str, str] = field(default_factory=dict)  # lock/list secondary -> "sync" or "async"
    signal_service: dict[str, float] = field(default_factory=dict)  # CF -> CF-to-CF signal at 0 km, s
    async_xi: frozenset[str] = frozenset()  # cache structures with asynchronous cross-invalidation
    xi_share: dict[str, float] = field(default_factory=dict)  # member -> share of page writes that XI across
    gbp_writes: dict[str, float] = field(default_factory=dict)  # member -> GBP page writes per transaction
    zhyperlink: dict[str, str] = field(default_factory=dict)  # member -> "reads", "writes" or "all"
    zhyperlink_read: float | None = None  # s
    zhyperlink_write: float | None = None  # s
    zhyperlink_miss: float = 0.0
    read_hit: float | None = None

    @property
    def assumed(self) -> tuple[str, ...]:
        """The defaults the answer rests on that no public figure or study gives, in words."""
        said = []
        if self.duplexing and not any(self.signal_service.values()):
            said.append(
                "CF-to-CF signal service 0 us at 0 km (not given: a lower bound of the duplexing "
                "cost; RMF 74-4 gives it)"
            )
        return tuple(said)


@dataclass(frozen=True)
class Scenario:
    """A checked scenario file, values in SI units."""

    title: str
    sites: tuple[str, ...]
    distances: np.ndarray  # m
    fibre_speed: float  # m/s
    crossing_latency: float  # s added to each round trip between the sites at a distance above 0 (equipment)
    goal_time: float  # s
    goal_share: float
    members: tuple[Member, ...]
    cf_sites: dict[str, str]
    structures: dict[str, Structure]
    paths: tuple[CFPath, ...]
    links: dict[str, dict[str, dict[str, float]]]  # link → "sync"/"async" → kind → s
    primary_site: str
    secondary_site: str
    metro_mirror: bool
    pprc_overhead: float
    read: IOTimes
    write: IOTimes
    volumes: int | None  # volumes the I/O is spread over: IOSQ computed (pav_iosq); None: IOSQ as given
    aliases: int  # PAV aliases per volume
    disk_background: float  # SSCH/s of other work on those volumes (deferred writes, castout), 1/s
    castout_owner: str | None  # the member whose reads queue behind castout writes (None: no such IOSQ)
    castout_write: IOTimes | None  # the owner's castout (DBM1) write at 0 km, s
    castout_iosq: float  # IOSQ on the owner's synchronous reads per second of its castout write response
    threshold: float
    redispatch: float
    async_cpu: float
    lockable_items: float
    resolution_round_trips: float
    lock_span: float
    shape: float
    calibration: tuple[dict[str, str], ...] = ()
    source: str = ""
    band: BandSpec | None = None  # None: no fitted parameter declares an interval
    protocols: Protocols = field(default_factory=Protocols)  # today's hardware and protocols (issue 36)
    free: tuple[str, ...] = ()  # the dotted keys qmodel scenario calibrate fits
    lock_measurement: LockMeasurement | None = None  # lockable_items inferred from it where not given
    defaults: tuple[tuple[str, str], ...] = ()  # (key, value as a file writes it) taken for keys left out
    # m between the sites when the links', disks' and CF signals' times were read (RMF): the solver takes
    # them to 0 km (qmodel.scenario.propagation.at_zero_km)
    measured_at: float = 0.0
    # the file's name, for the errors found after it is read (the solver's checks): no part of its content
    where: str = field(default="scenario", repr=False, compare=False)

    def member(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)

    @property
    def member_shapes(self) -> np.ndarray:
        """(M,) each member's gamma shape of its response time: its own, or the [distribution]'s."""
        return np.array([self.shape if m.shape is None else m.shape for m in self.members], float)

    def path(self, member: str, cf: str) -> CFPath:
        return next(p for p in self.paths if p.member == member and p.cf == cf)


# m: the least distance measured_at takes above 0 (trial 7, N11: "8m" typed for 8km moved an answer from
# 16.0 to 5.8 km). Above 0 the model takes a route's round trips off every time measured, crossing_latency
# (the equipment between the sites, 138 us by default) included; sites under 100 m apart share a machine
# room's cabling, no such route: 0km describes them.
SITES_APART = 100.0


def spelled(value: object, choices: Iterable[str]) -> object:
    """``value`` as ``choices`` spell it where it is one of them but for case and surrounding blanks
    (``"FCP"``, IBM's spelling, for ``fcp``; ``"ica-sr"`` for ``ICA-SR``): an enumerated value is read
    alike however it is capitalised, and said back in its one spelling (trial 8, P10). Anything else is
    returned as it is, for its reader to refuse."""
    if isinstance(value, str):
        for choice in choices:
            if value.strip().lower() == choice.lower():
                return choice
    return value


def _shown(value: object, key: str = "") -> str:
    """A value as the file has it, cut at 60 characters: text as typed (``""`` when empty), numbers,
    true/false and lists as TOML writes them, a table by its name ([key] table); None is missing."""
    if value is None:
        return "missing"
    if isinstance(value, dict):
        return f"a [{key}] table" if value else "{}"
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return f"[[{key}]] tables"
    if isinstance(value, str):
        text = value if value.strip() else json.dumps(value)
    elif isinstance(value, list):
        text = "[" + ", ".join(json.dumps(v) if isinstance(v, str) else _shown(v, key) for v in value) + "]"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = repr(value)
    else:
        text = str(value)  # an integer, a TOML date or time
    return text if len(text) <= 60 else text[:57] + "..."


def _bare_nonzero(text: object) -> bool:
    """A number without its unit, 8.8 or "8.8", other than 0 (the same in every unit)."""
    if isinstance(text, bool):
        return False
    if isinstance(text, (int, float)):
        return text != 0
    split = split_number(text) if isinstance(text, str) else None
    return split is not None and not split[1] and float(split[0]) != 0


class _Reader:
    """Reads values out of the parsed TOML, naming the key of anything wrong."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.defaulted: list[tuple[str, str]] = []  # (key, default as a file writes it) the file left out

    def error(self, key: str, value: object, allowed: str, reason: str = "", unit: str = "") -> ScenarioError:
        return ScenarioError(self.where, key, value, allowed, reason=reason, unit=unit)

    def table(self, data: dict, key: str, *, required: bool = True, allowed: str = "") -> dict:
        value = data.get(key, {} if not required else None)
        if not isinstance(value, dict):
            raise self.error(key, _shown(value, key), allowed or f"a [{key}] table")
        return value

    def tables(self, data: dict, key: str) -> list[dict]:
        value = data.get(key)
        if value is None:
            raise self.error(key, "missing", f"at least one [[{key}]] table")
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self.error(key, _shown(value, key), f"[[{key}]] tables (double brackets), one per {key}")
        return value

    def known(self, table: dict, allowed: set[str], key: str) -> None:
        unknown = sorted(set(table) - allowed)
        if unknown:
            raise self.error(
                f"{key}.{unknown[0]}",
                _shown(table[unknown[0]], unknown[0]),
                ", ".join(sorted(allowed)),
                reason="unknown key",
            )

    def quantity(
        self,
        table: dict,
        key: str,
        unit: str,
        name: str,
        *,
        default: object = None,
        lower: float = 0.0,
        strict: bool = False,
        allowed: str = "",
    ) -> float:
        """A value in ``unit`` read in the unit dialect, converted to SI; must be ≥ lower (> if strict),
        and a share at most 100%. ``allowed``: what to say is allowed where the key is absent (and has
        no default) or unreadable; by default the forms of its dimension. Errors name the file and echo
        the value as the file has it."""
        text = table.get(key, default)
        label = f"{name}.{key}" if name else key
        dimension = UNITS[unit].dimension
        allowed = allowed or FILE_FORMS[dimension]
        if text is None:
            raise self.error(label, "missing", allowed)
        if dimension not in ("count", "ratio", "rate") and _bare_nonzero(text):
            raise _unit_missing(partial(self.error, label), _shown(text), unit)
        if not isinstance(text, (str, int, float)):
            raise self.error(label, _shown(text, key), allowed, reason="not a number")
        try:
            value = parse_value(label, text, unit) * UNITS[unit].to_si
        except InputError as error:
            raise self.error(label, _shown(text), allowed, reason=error.reason) from None
        if dimension == "ratio" and value > 1:
            raise self.error(label, _shown(text), *share_advice(text))
        if not np.isfinite(value) or value < lower or (strict and value == lower):
            shown_unit = "" if unit == "1" else f" {unit}"
            raise self.error(label, _shown(text), f"{'>' if strict else '>='} {lower:g}{shown_unit}")
        low, high = PLAUSIBLE.get(dimension, (0.0, np.inf))
        if value != 0 and not low <= value <= high:
            scale, shown_unit = UNITS[unit].to_si, "" if unit == "1" else f" {unit}"
            raise self.error(
                label,
                _shown(text),
                f"{'' if strict or low == 0 else '0, or '}from "
                f"{low / scale:g} to {high / scale:g}{shown_unit}",
                reason="outside the range the model's arithmetic holds",
            )
        return value

    def value(
        self,
        table: dict,
        schema_table: str,
        name: str,
        label: str,
        *,
        key: str | None = None,
        default: object = None,
        allowed: str = "",
    ) -> float:
        """The value of key ``name`` of the schema's table ``schema_table`` (:func:`quantity`), in the
        unit, with the default and the bound its schema row gives. ``key``: the key in ``table`` where
        it differs (an entry of a table of values: a structure of ``requests``, a kind of ``sync``);
        ``default``: in place of the schema's where the reader decides it (no lock contention)."""
        row = key_of(schema_table, name)
        if (name if key is None else key) not in table and default is None and row.file_default is not None:
            self.defaulted.append((f"{label}.{name}" if label else name, str(row.file_default)))
        value = self.quantity(
            table,
            name if key is None else key,
            row.unit,
            label,
            default=row.file_default if default is None else default,
            strict=row.positive,
            allowed=allowed,
        )
        ceiling = plausible_ceiling(row)
        if value > ceiling:
            written, why = row.plausible or ("", "")
            shown = f"{label}.{name if key is None else key}" if label else (name if key is None else key)
            raise self.error(
                shown,
                _shown(table.get(name if key is None else key)),
                f"at most {written}, written in its unit (88us, 0.12ms)",
                reason=f"more than any reading of it: {why}",
            )
        return value

    def profile(self, table: dict, key: str, name: str) -> float:
        """A part of a member's profile: required (none is assumed), its meaning said where it is missing."""
        return self.value(table, "member", key, name, allowed=PROFILE_FORMS[key])

    def whole(self, table: dict, schema_table: str, key: str, name: str) -> int:
        """A whole number, at least 1 where the schema says it is positive (else at least 0)."""
        row = key_of(schema_table, key)
        lower = 1 if row.positive else 0
        value = table.get(key, row.file_default)
        label = f"{name}.{key}"
        if isinstance(value, bool) or not isinstance(value, int) or value < lower:
            quoted = isinstance(value, str) and (bare_number(value) or "").isdigit()
            raise self.error(
                label,
                f'"{value}"' if quoted else _shown(value, key),
                f"a whole number >= {lower}",
                reason="text: a whole number is written without quotes" if quoted else "",
            )
        return value

    def name(self, table: dict, key: str, choices, name: str) -> str:
        value = table.get(key)
        if not isinstance(value, str) or value not in choices:
            raise self.error(f"{name}.{key}", _shown(value, key), "one of " + ", ".join(sorted(choices)))
        return value


def plausible_ceiling(row: ScenarioKey) -> float:
    """The largest value (SI) of the key ``row`` a planner's reading has (its ``plausible``), inf where the
    schema gives none."""
    if row.plausible is None:
        return np.inf
    return parse_value(row.name, row.plausible[0], row.unit) * UNITS[row.unit].to_si


def share_advice(text: object) -> tuple[str, str]:
    """(allowed, reason) for a share above 100% (a scenario file's, a measured row's): a bare 95 is
    advised as 95% or 0.95."""
    number = text if isinstance(text, (int, float)) else None
    if isinstance(text, str) and (bare := bare_number(text)) is not None:
        number = float(bare)
    if number is not None and number <= 100:
        return f"a share up to 100%: {number:g}% or {number / 100:g}", "a bare share is a fraction of 1"
    return "a share up to 100%, e.g. 95% or 0.95", "above 100%"


def _distances(reader: _Reader, text: object) -> np.ndarray:
    """A distance, a list of distances (ascending), or a range ``START..STOP`` (21 points), in m. A
    number written without its unit is refused (``70`` could be km or miles); text takes the dialect
    of :func:`parse_distances`."""
    if isinstance(text, str):
        return parse_distances(text, file=reader.where)
    items = text if isinstance(text, list) else [text]
    if not items:
        raise reader.error("distance", "[]", FILE_DISTANCES)
    values = np.array([reader.quantity({"distance": item}, "distance", "km", "") for item in items])
    _ascending(partial(reader.error, "distance"), _shown(text), values, '["20km", "40km", "70km"]')
    return values


def parse_distances(text: str, where: str = "--distance", points: int = 21, *, file: str = "") -> np.ndarray:
    """Distances as typed: ``70km``, ``20,40,70km`` or ``0..100km`` (``points`` points), in m.

    Lists and ranges are those of the unit dialect (:func:`qmodel.units.parse_list`,
    :func:`qmodel.units.split_range`): a unit written on the last item applies to the bare ones.
    On the command line (errors named ``where``) a bare number is in km; in a scenario ``file``
    (errors are its :class:`ScenarioError` of key ``distance``) it is refused, as every bare length
    there. A list goes up: ``20,40,5km`` is refused, not run as 40 km then 5 km; two distinct items
    a decimal comma would make one (``0,5km``, ``12,5km``) are refused as ambiguous, in either order,
    the list form written ascending (:func:`qmodel.units.refuse_decimal_comma`). Every error echoes
    the whole text as typed.
    """
    refuse = partial(ScenarioError, file, "distance") if file else partial(InputError, where)
    try:
        ends = split_range(where, text)
        typed = text.split(",") if ends is None else list(ends)  # the items of a list, or a range's ends
        values = np.array(parse_list(where, ",".join(typed), "km"))
    except InputError as error:
        part = f"{error.value}: {error.reason}" if error.reason else str(error.value)
        raise refuse(
            text,
            FILE_DISTANCES if file else error.allowed,
            reason=error.reason if str(error.value) == text else part,
        ) from None
    if (values < 0).any() or not np.isfinite(values).all():
        raise refuse(text, "finite distances >= 0 km")
    if ends is None:  # a list: a decimal comma first (its list form written ascending), then its order
        if len(set(values.tolist())) == len(values):  # two of one distance are no list: the order says
            try:
                refuse_decimal_comma(where, text, "km", ascending=True)
            except InputError as error:
                raise refuse(text, error.allowed, reason=error.reason) from None
        _ascending(refuse, text, values)
    # a bare item takes the unit of the last: in a file, the last needs one (a bare 0 needs none)
    last = split_number(typed[-1])
    if file and not (last and last[1]) and any(_bare_nonzero(item) for item in typed):
        raise _unit_missing(refuse, text, "km")
    if ends is not None:
        low, high = values
        if not high > low:
            raise refuse(text, "START..STOP with STOP beyond START")
        if not 2 <= points <= MAX_DISTANCES:
            raise InputError("--points", points, f"2 to {MAX_DISTANCES:,}")
        values = np.linspace(low, high, points)
    return values * UNITS["km"].to_si


def _ascending(refuse, typed: str, values: np.ndarray, example: str = "20,40,70km") -> None:
    """Distances listed in ascending order, each once. Two items that go down and a decimal comma would
    make one distance (``20,5km``, ``20km,40,5km``: 40.5 km in German notation) are named as such: the
    error says how to write that."""
    if (np.diff(values) > 0).all():
        return
    items = typed.split(",")
    pairs = [",".join(items[i : i + 2]) for i in np.flatnonzero(np.diff(values) <= 0)]
    decimal = [(pair, reading) for pair in pairs if (reading := decimal_comma(pair)) is not None]
    if len(items) != len(values) or not decimal:
        raise refuse(typed, f"distances in ascending order, e.g. {example}", reason="not in ascending order")
    pair, (number, unit) = decimal[0]
    raise refuse(
        typed,
        f"distances in ascending order; for {number} {unit or 'km'} write {number}{unit or 'km'}",
        reason=f"not in ascending order: {pair.strip()} reads as {number} with a decimal comma",
    )


def check_path_capacity(scenario: Scenario, holding: list[np.ndarray]) -> None:
    """Refuse a path whose background_rate alone is more than its subchannels carry at 0 km: c / h
    requests per second, with c subchannels each held h seconds per request (``holding``, per path at
    0 km, from the composition). The finite-source queue would carry c / h and report it as the path's
    rate, with no sign that the load offered is impossible at any distance. (Farther on, where every
    path slows, the thrashing and goal notes speak.)"""
    for path, held in zip(scenario.paths, holding, strict=True):
        time = float(np.ravel(held)[0])
        capacity = path.subchannels / time if time > 0 else np.inf
        if path.background_rate >= capacity:
            most = f"{capacity:,.0f}"
            carry = "subchannel carries" if path.subchannels == 1 else "subchannels carry"
            raise ScenarioError(
                "scenario",
                f"path {path.member}→{path.cf}.background_rate",
                f"{path.background_rate:g}/s",
                f"below {most}/s, or more subchannels",
                reason=f"more than its {path.subchannels} {carry}, at most {most} requests/s even at 0 km",
            )


def _dotted(table: dict, prefix: str = "") -> dict[str, object]:
    """A table's values by dotted key: ``{ locks.lock_span = "15%" }`` (TOML nests it) as
    ``{"locks.lock_span": "15%"}``, the same as the quoted ``{ "locks.lock_span" = "15%" }``."""
    flat: dict[str, object] = {}
    for key, value in table.items():
        if isinstance(value, dict) and value:
            flat.update(_dotted(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _band(reader: _Reader, data: dict) -> BandSpec | None:
    """The [band] table: method (text) and points (tables of dotted keys, each value a number or text)."""
    if "band" not in data:
        return None
    band = reader.table(data, "band", allowed="a [band] table with method and points")
    reader.known(band, {"method", "points", "weights", "measured_at"}, "band")
    method = band.get("method")
    if not isinstance(method, str) or not method.strip():
        raise reader.error("band.method", _shown(method), "how the points were chosen, as text")
    points = band.get("points")
    if not isinstance(points, list) or not points or not all(isinstance(p, dict) and p for p in points):
        raise reader.error("band.points", _shown(points, "points"), BAND_POINTS_FORM)
    flat = tuple(_dotted(point) for point in points)
    for index, point in enumerate(flat, 1):
        for key, value in point.items():
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise reader.error(
                    f"band.points[{index}].{key}",
                    _shown(value, key),
                    'a number or a value with its unit, e.g. 650 or "15%"',
                )
    weights = band.get("weights", [])
    if (
        not isinstance(weights, list)
        or (weights and len(weights) != len(flat))
        or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and 0 <= w <= 1 for w in weights)
        or sum(weights) > 1 + 1e-9
    ):
        raise reader.error("band.weights", _shown(weights, "weights"), BAND_WEIGHTS_FORM)
    measured_at = None if "measured_at" not in band else reader.quantity(band, "measured_at", "km", "band")
    return BandSpec(method.strip(), flat, tuple(float(w) for w in weights), measured_at)


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file, or a shipped one by name (``"gdps-env2"``, as ``qmodel scenario``
    takes it: :func:`qmodel.scenario.files.resolve_scenario`); InputError naming the key of anything wrong.

    :param path: a scenario file's path, or a shipped scenario's name (``qmodel scenario --list``).
    :returns: the scenario, every value in SI units (s, m, 1/s).
    :raises InputError: naming the file, the key, the value and what is allowed.
    """
    path = resolve_scenario(path)
    return scenario_from_dict(read_scenario_toml(path), path.name)


def read_scenario_toml(path: str | Path, *, with_fit: bool = True) -> dict:
    """A scenario file's TOML tables, unchecked; InputError for a missing file, a directory, text that
    is not UTF-8 (:func:`qmodel.tomlread.read_toml`) or not TOML (with the [[member]] hint). With
    ``with_fit``, the values ``qmodel scenario calibrate`` fitted for it (its fit file beside it,
    :func:`qmodel.scenario.files.fit_path`) take the place of the file's own
    (:func:`qmodel.scenario.files.with_fitted`)."""
    path = Path(path)
    fitted = fit_path(path)
    if with_fit and fitted.is_file() and fitted != path:
        own, fit = read_scenario_toml(path, with_fit=False), read_toml(fitted, what="fit")
        return _fit_checked(own, fit, path, fitted)
    try:
        data = format_checked(read_toml(path, what="scenario"), path.name)
        if not data:
            raise InputError(
                "scenario",
                str(path),
                "a scenario file: sites, [[member]], [[cf]] and [[path]] "
                "tables (qmodel scenario --list shows the shipped ones)",
                reason="empty",
            )
        return data
    except CatalogueError as error:
        hint = ""
        if "Cannot overwrite a value" in str(error) or "Cannot declare" in str(error):
            hint = (
                "; members, CFs and paths are written [[member]], [[cf]], [[path]] (double brackets), "
                "one per item, never [member] as well"
            )
        raise InputError("scenario", str(path), "a TOML file", reason=f"{error}{hint}") from None


def _fit_checked(own: dict, fit: dict, path: Path, fitted: Path) -> dict:
    """The file's tables ``own`` with its fit file's ``fit`` in place of the same keys
    (:func:`qmodel.scenario.files.with_fitted`); a value the file takes from its own tables but not from
    the fit's is an error naming the fit file, and how to redo it or remove it."""
    merged = with_fitted(own, fit)
    try:
        scenario_from_dict(merged, path.name)
    except ScenarioError as error:
        try:
            scenario_from_dict(own, path.name)
        except InputError:
            raise error from None  # the file's own fault, the fit file aside
        measurements = (fit.get("fit") or {}).get("measurements", "MEASUREMENTS")
        redo = f"qmodel scenario calibrate {path.name} {measurements}"
        raise ScenarioError(
            fitted.name,
            error.key,
            error.value,
            f"{error.allowed}; the fit file is written by {redo}: run it again, or delete {fitted.name}",
            reason=error.reason,
        ) from None
    return merged


def scenario_from_dict(data: dict, where: str = "scenario") -> Scenario:
    """Check a parsed scenario (the TOML tables) and convert every value to SI.

    Each value is read in the unit, with the default and the bound its row of
    :data:`qmodel.scenario.schema.SCENARIO_KEYS` gives; every error names the key.

    :param data: the scenario file's tables, as TOML reads them.
    :param where: the file's name, for the errors.
    :returns: the checked :class:`Scenario`, values in SI units.
    """
    reader = _Reader(where)
    reader.known(data, TOP_KEYS, "scenario")
    sites = _sites(reader, data)
    goal = reader.table(data, "goal")
    reader.known(goal, SECTION_KEYS["goal"], "goal")
    cf_sites, structures = _cfs(reader, data, sites)
    links = _links(reader, data)
    link_types = _link_types(reader, data)
    members, typed_requests = _members(reader, data, sites, structures)
    paths = _paths(reader, data, {m.name for m in members}, set(cf_sites), set(links), link_types)
    _check_duplexed_requests(reader, members, typed_requests, structures)
    _check_requests(reader, members, typed_requests, structures, paths, links)
    disk = _disk(reader, data, sites, {m.name for m in members})
    conversion = reader.table(data, "conversion", required=False)
    reader.known(conversion, SECTION_KEYS["conversion"], "conversion")
    distribution = reader.table(data, "distribution", required=False)
    reader.known(distribution, SECTION_KEYS["distribution"], "distribution")
    measured_at = reader.value(data, "", "measured_at", "")
    if 0 < measured_at < SITES_APART:
        raise reader.error(
            "measured_at",
            _shown(data["measured_at"]),
            f"0km (the sites side by side) or at least {SITES_APART:g}m (e.g. 8km)",
            reason="above 0 km the model takes a route's round trips and crossing_latency off every time "
            "measured, and sites that close have no such route: m typed for km?",
        )
    calibration = data.get("calibration", [])
    if not isinstance(calibration, list) or not all(isinstance(c, dict) for c in calibration):
        raise reader.error("calibration", _shown(calibration, "calibration"), "[[calibration]] tables")
    return Scenario(
        title=str(data.get("title", where)),
        sites=tuple(sites),
        distances=_distances(reader, data.get("distance", key_of("", "distance").file_default)),
        fibre_speed=reader.value(data, "", "fibre_speed", ""),
        crossing_latency=reader.value(data, "", "crossing_latency", ""),
        measured_at=measured_at,
        goal_time=reader.value(goal, "goal", "response_time", "goal"),
        goal_share=reader.value(goal, "goal", "share", "goal"),
        members=tuple(members),
        cf_sites=cf_sites,
        structures=structures,
        paths=tuple(paths),
        links=links,
        **disk,
        threshold=reader.value(conversion, "conversion", "threshold", "conversion"),
        redispatch=reader.value(conversion, "conversion", "redispatch", "conversion"),
        async_cpu=reader.value(conversion, "conversion", "async_cpu", "conversion"),
        **_locks(reader, data, measured_at),
        shape=reader.value(distribution, "distribution", "shape", "distribution"),
        calibration=tuple({str(k): str(v) for k, v in c.items()} for c in calibration),
        source=str(data.get("source", "")),
        band=_band(reader, data),
        protocols=_protocols(reader, data, link_types, structures, members, paths, cf_sites),
        free=_free(reader, data),
        defaults=tuple(reader.defaulted),  # last: every value above is read by now
        where=where,
    )


def _free(reader: _Reader, data: dict) -> tuple[str, ...]:
    """The declared free parameters: a list of dotted keys (checked against the scenario by the fit)."""
    free = data.get("free", key_of("", "free").file_default)
    if not isinstance(free, list) or not all(isinstance(key, str) and key.strip() for key in free):
        raise reader.error(
            "free",
            _shown(free, "free"),
            'a list of dotted keys, e.g. ["locks.lockable_items", "member.*.other"]',
        )
    return tuple(key.strip() for key in free)


def _sites(reader: _Reader, data: dict) -> list[str]:
    """The one or two distinct site names."""
    sites = data.get("sites")
    if (
        not isinstance(sites, list)
        or not sites
        or not all(isinstance(s, str) for s in sites)
        or len(set(sites)) != len(sites)
    ):
        raise reader.error(
            "sites", _shown(sites, "sites"), 'a list of distinct site names, e.g. ["site1", "site2"]'
        )
    if len(sites) > 2:
        raise reader.error("sites", _shown(sites), "one or two sites (the distance is between two)")
    if refused := next(filter(None, map(name_refused, sites)), None):
        raise reader.error(
            "sites", _shown(sites), "site names of letters, digits and punctuation", reason=refused
        )
    return sites


def _cfs(reader: _Reader, data: dict, sites: list[str]) -> tuple[dict[str, str], dict[str, Structure]]:
    """Each CF's site, and every structure (a duplexed secondary named with its primary)."""
    cf_sites: dict[str, str] = {}
    structures: dict[str, Structure] = {}
    for index, table in enumerate(reader.tables(data, "cf"), 1):
        label = f"cf[{index}]"
        reader.known(table, keys_of("cf"), label)
        name = table.get("name")
        if not isinstance(name, str) or not name or name in cf_sites:
            raise reader.error(f"{label}.name", _shown(name), "a name, different for each CF")
        if refused := name_refused(name):
            raise reader.error(
                f"{label}.name", _shown(name), "a name of letters, digits and punctuation", reason=refused
            )
        cf_sites[name] = reader.name(table, "site", sites, f"cf {name}")
        given = table.get("structures")
        if not isinstance(given, dict) or not given:
            raise reader.error(
                f"cf {name}.structures", _shown(given, "structures"), '{ LOCK1 = "lock", GBP8P = "cache" }'
            )
        for structure, kind in given.items():
            kind = spelled(kind, STRUCTURE_KINDS)
            if isinstance(kind, str) and kind.lower().startswith(SECONDARY):
                kind = SECONDARY + kind[len(SECONDARY) :]
            if structure in structures:
                raise reader.error(
                    f"cf {name}.structures.{structure}", _shown(kind), "each structure in one CF"
                )
            primary = ""
            if isinstance(kind, str) and kind.startswith(SECONDARY):
                primary = kind.removeprefix(SECONDARY)
                kind = "secondary"  # its primary's kind, once every structure is read
            if kind not in STRUCTURE_KINDS and not primary:
                raise reader.error(
                    f"cf {name}.structures.{structure}",
                    _shown(kind, structure),
                    "lock, cache, list, or 'secondary of PRIMARY'",
                )
            structures[structure] = Structure(structure, name, kind, primary)
    for structure in list(structures.values()):
        if structure.primary and (
            structure.primary not in structures
            or structures[structure.primary].primary
            or structures[structure.primary].cf == structure.cf
        ):
            raise reader.error(
                f"cf {structure.cf}.structures.{structure.name}",
                f"secondary of {structure.primary}",
                "the secondary of a structure declared in another [[cf]] (DB2 duplexes group buffer "
                "pools; a lock or list structure is duplexed by z/OS: cf.duplexing)",
            )
        if structure.primary:  # a secondary is of its primary's kind
            structures[structure.name] = Structure(
                structure.name, structure.cf, structures[structure.primary].kind, structure.primary
            )
    return cf_sites, structures


def _links(reader: _Reader, data: dict) -> dict[str, dict[str, dict[str, float]]]:
    """Each link type's service times at 0 km (s) and converted shares, by mode and structure kind."""
    links: dict[str, dict[str, dict[str, float]]] = {}
    for link_name, table in reader.table(data, "link").items():
        if not isinstance(table, dict):
            raise reader.error(f"link.{link_name}", _shown(table), "a [link.NAME] table with sync and async")
        reader.known(table, keys_of("link"), f"link.{link_name}")
        links[link_name] = {}
        for mode in ("sync", "async", "converted"):
            times = table.get(mode, key_of("link", mode).file_default)
            if not isinstance(times, dict):
                raise reader.error(
                    f"link.{link_name}.{mode}", _shown(times, mode), '{ lock = "7us", cache = "9us" }'
                )
            for kind in times:
                if kind not in STRUCTURE_KINDS:
                    raise reader.error(
                        f"link.{link_name}.{mode}.{kind}",
                        _shown(times[kind], kind),
                        ", ".join(STRUCTURE_KINDS),
                    )
            where = f"link.{link_name}.{mode}"
            links[link_name][mode] = {
                kind: reader.value(times, "link", mode, where, key=kind) for kind in times
            }
    return links


def _members(
    reader: _Reader, data: dict, sites: list[str], structures: dict[str, Structure]
) -> tuple[list[Member], dict[str, dict]]:
    """The members, and each one's requests as the file writes them (for the errors that follow)."""
    members = []
    typed_requests: dict[str, dict] = {}
    for index, table in enumerate(reader.tables(data, "member"), 1):
        name = table.get("name")
        named = isinstance(name, str) and name != "" and name not in typed_requests
        label = f"member {name}" if named else f"member[{index}]"
        reader.known(table, MEMBER_KEYS, label)
        if not named:
            raise reader.error(
                f"{label}.name",
                _shown(name),
                "a name, different for each member",
                reason="given twice" if isinstance(name, str) and name else "",
            )
        assert isinstance(name, str)
        if refused := name_refused(name, reserved=("all",)):  # shown escaped; "all" is the total's row
            raise reader.error(
                f"member[{index}].name",
                _shown(name),
                "a name of letters, digits and punctuation, other than all",
                reason=refused,
            )
        requests = table.get("requests")
        if not isinstance(requests, dict):
            raise reader.error(f"{label}.requests", _shown(requests), PROFILE_FORMS["requests"])
        for structure in requests:
            if structure not in structures:
                raise reader.error(
                    f"{label}.requests.{structure}",
                    _shown(requests[structure]),
                    "a structure of a [[cf]]: " + ", ".join(structures),
                    reason="unknown structure",
                )
        typed_requests[name] = requests
        arrival_rate = None
        if "arrival_rate" in table:
            both = next((key for key in ("terminals", "think_time") if key in table), None)
            if both:
                raise reader.error(
                    f"{label}.{both}",
                    _shown(table[both]),
                    "left out beside arrival_rate",
                    reason="a member's workload is a rate (open) or terminals with a think "
                    "time (closed), not both",
                )
            arrival_rate = reader.value(table, "member", "arrival_rate", label)
        members.append(
            Member(
                name=name,
                site=reader.name(table, "site", sites, label),
                logical_cps=reader.whole(table, "member", "logical_cps", label),
                terminals=0 if arrival_rate else reader.whole(table, "member", "terminals", label),
                think_time=0.0 if arrival_rate else reader.value(table, "member", "think_time", label),
                arrival_rate=arrival_rate,
                cpu=reader.value(table, "member", "cpu", label),
                other=reader.profile(table, "other", label),
                sync_reads=reader.profile(table, "sync_reads", label),
                log_writes=reader.profile(table, "log_writes", label),
                requests={
                    s: reader.value(requests, "member", "requests", f"{label}.requests", key=s)
                    for s in requests
                },
                tpno_share=reader.profile(table, "tpno_share", label),
                shape=reader.value(table, "member", "shape", label) if "shape" in table else None,
            )
        )
    return members, typed_requests


def _paths(
    reader: _Reader, data: dict, members: set[str], cfs: set[str], links: set[str], link_types: dict[str, str]
) -> list[CFPath]:
    """Each member's path to a CF: one per member and CF; without its subchannels, those of its link's
    type per CHPID (:data:`qmodel.studies.hardware.LINK_TYPES`), else the study's 7."""
    paths: list[CFPath] = []
    for index, table in enumerate(reader.tables(data, "path"), 1):
        reader.known(table, PATH_KEYS, f"path[{index}]")
        member = reader.name(table, "member", members, f"path[{index}]")
        cf = reader.name(table, "cf", cfs, f"path[{index}]")
        label = f"path {member}→{cf}"  # as people name a path, once it has its ends
        if any(p.member == member and p.cf == cf for p in paths):
            raise reader.error(f"path[{index}]", f"{member} → {cf}", "one [[path]] per member and CF")
        link = reader.name(table, "link", links, label)
        if "subchannels" not in table:  # said with the answer, with whose it is (trial 8, P6)
            kind = LINK_TYPES.get(link_types.get(link, ""))
            study = key_of("path", "subchannels").file_default
            count = kind.subchannels if kind else study
            whose = f"{kind.name}'s {count} per CHPID" if kind else f"the study's {count} (no link type)"
            reader.defaulted.append((f"{label}.subchannels", whose))
            table = {**table, "subchannels": count}
        paths.append(
            CFPath(
                member,
                cf,
                link,
                reader.whole(table, "path", "subchannels", label),
                reader.value(table, "path", "background_rate", label),
            )
        )
    return paths


def _check_requests(
    reader: _Reader,
    members: list[Member],
    typed_requests: dict[str, dict],
    structures: dict[str, Structure],
    paths: list[CFPath],
    links: dict[str, dict[str, dict[str, float]]],
) -> None:
    """Every member's requests have a path to their CF, a service of their kind on its link, and a
    duplexed secondary's count at most its primary's."""
    for member in members:
        for structure in member.requests:
            cf = structures[structure].cf
            if not any(p.member == member.name and p.cf == cf for p in paths):
                raise reader.error(
                    f"member {member.name}.requests.{structure}",
                    _shown(typed_requests[member.name][structure]),
                    f"a [[path]] from {member.name} to {cf}",
                    reason="no path to its CF",
                )
            kind = structures[structure].kind
            link = next(p.link for p in paths if p.member == member.name and p.cf == cf)
            if kind not in links[link]["sync"] or kind not in links[link]["async"]:
                raise reader.error(
                    f"link.{link}",
                    f"no {kind} service",
                    f"sync and async service for {kind} requests (used by {member.name}'s {structure})",
                )
            primary = structures[structure].primary
            if primary and member.requests[structure] > member.requests.get(primary, 0.0):
                typed = typed_requests[member.name]
                raise reader.error(
                    f"member {member.name}.requests.{structure}",
                    _shown(typed[structure]),
                    f"at most its primary's {_shown(typed.get(primary, 0))} ({primary})",
                    reason="only pages written to the primary are duplexed: the profile does not add up",
                )


def _disk(reader: _Reader, data: dict, sites: list[str], members: set[str]) -> dict[str, Any]:
    """The [disk] table's fields of :class:`Scenario`, by name."""
    disk = reader.table(data, "disk")
    reader.known(disk, SECTION_KEYS["disk"], "disk")
    metro_mirror = disk.get("metro_mirror", key_of("disk", "metro_mirror").file_default)
    if not isinstance(metro_mirror, bool):
        raise reader.error("disk.metro_mirror", _shown(metro_mirror), "true or false")
    if "metro_mirror" not in disk:
        reader.defaulted.append(("disk.metro_mirror", "false"))
    for key in ("volumes", "castout_owner"):  # each a note, what holds without it
        if key not in disk:
            reader.defaulted.append((f"disk.{key}", str(key_of("disk", key).default)))
    if "volumes" in disk and "aliases" not in disk:  # aliases count only where IOSQ is computed
        reader.defaulted.append(("disk.aliases", str(key_of("disk", "aliases").file_default)))
    primary = reader.name(disk, "primary_site", sites, "disk")
    io = {}
    castout = "castout_owner" in disk
    for kind in ("read", "write") + (("castout_write",) if castout else ()):
        table = reader.table(disk, kind)
        reader.known(table, set(IO_KEYS), f"disk.{kind}")
        # with volumes, IOSQ is computed from the load (the volumes table says it): no default taken
        computed = {"iosq": 0.0} if "volumes" in disk else {}
        io[kind] = IOTimes(
            *(reader.value(table, "disk.io", k, f"disk.{kind}", default=computed.get(k)) for k in IO_KEYS)
        )
        if "volumes" in disk and io[kind].iosq:  # computed from the load there: a given one would go unused
            raise reader.error(
                f"disk.{kind}.iosq",
                _shown(table["iosq"]),
                "0ms, or left out",
                reason="with disk.volumes, IOSQ is computed from the load",
            )
    if castout and "volumes" in disk:
        raise reader.error(
            "disk.castout_owner",
            _shown(disk["castout_owner"]),
            "left out beside disk.volumes",
            reason="with disk.volumes, IOSQ is computed from the load",
        )
    return {
        "primary_site": primary,
        "secondary_site": reader.name(disk, "secondary_site", sites, "disk") if metro_mirror else primary,
        "metro_mirror": metro_mirror,
        "pprc_overhead": reader.value(disk, "disk", "pprc_overhead", "disk") if metro_mirror else 0.0,
        "read": io["read"],
        "write": io["write"],
        "volumes": reader.whole(disk, "disk", "volumes", "disk") if "volumes" in disk else None,
        "aliases": reader.whole(disk, "disk", "aliases", "disk"),
        "disk_background": reader.value(disk, "disk", "background_rate", "disk"),
        "castout_owner": reader.name(disk, "castout_owner", members, "disk") if castout else None,
        "castout_write": io.get("castout_write"),
        "castout_iosq": reader.value(disk, "disk", "castout_iosq", "disk") if castout else 0.0,
    }


def _locks(reader: _Reader, data: dict, measured_at: float) -> dict[str, Any]:
    """The [locks] fields of :class:`Scenario`: lockable_items = inf (no contention) needs no other; left
    out beside measured_wait it is NaN here, inferred from the measurement
    (:func:`qmodel.scenario.fit.with_inferred_locks`), measured where the file's own ``measured_at``
    (m) says unless [locks] says otherwise."""
    locks = reader.table(data, "locks", allowed=LOCKS_FORM)
    reader.known(locks, SECTION_KEYS["locks"], "locks")
    hot_set = locks.get("lockable_items")  # inf as TOML's bare inf or as the text "inf"
    no_contention = hot_set == np.inf or (isinstance(hot_set, str) and hot_set.strip().lower() == "inf")
    measured = None
    if "measured_wait" in locks:
        if "measured_at" not in locks:
            reader.defaulted.append(("locks.measured_at", f"{measured_at / 1e3:g}km (measured_at)"))
        measured = LockMeasurement(
            reader.value(locks, "locks", "measured_wait", "locks"),
            reader.value(locks, "locks", "measured_at", "locks", default=f"{measured_at / 1e3!r}km"),
        )
    elif "measured_at" in locks:
        raise reader.error(
            "locks.measured_at", _shown(locks["measured_at"]), "left out, or beside measured_wait"
        )
    inferred = measured is not None and hot_set is None
    return {
        "lock_measurement": measured,
        "lockable_items": np.inf
        if no_contention
        else np.nan
        if inferred
        else reader.value(locks, "locks", "lockable_items", "locks", allowed=LOCKABLE_FORM),
        "resolution_round_trips": reader.value(  # no contention: none to resolve
            locks,
            "locks",
            "resolution_round_trips",
            "locks",
            default=0 if no_contention else None,
            allowed=ROUND_TRIPS_FORM,
        ),
        "lock_span": reader.value(
            locks, "locks", "lock_span", "locks", default=1 if no_contention else None, allowed=LOCK_SPAN_FORM
        ),
    }


# ---- today's hardware and protocols (issue 36): read apart from the study's keys ----

ZHYPERLINK_USES = ("none", "reads", "writes", "all")
CROSS_INVALIDATION = ("sync", "async")


def _check_duplexed_requests(
    reader: _Reader, members: list[Member], typed_requests: dict[str, dict], structures: dict[str, Structure]
) -> None:
    """A lock or list structure's secondary takes no requests of its own: z/OS sends its primary's."""
    for member in members:
        for structure in member.requests:
            if structures[structure].primary and structures[structure].kind != "cache":
                raise reader.error(
                    f"member {member.name}.requests.{structure}",
                    _shown(typed_requests[member.name][structure]),
                    f"the requests to its primary {structures[structure].primary} only",
                    reason="z/OS duplexes a lock or list structure: the secondary takes its "
                    "primary's requests",
                )


def _link_types(reader: _Reader, data: dict) -> dict[str, str]:
    """Each [link.NAME]'s type where the file gives one (its reach is checked at each distance solved)."""
    types = {}
    for name, table in reader.table(data, "link").items():
        if isinstance(table, dict) and "type" in table:
            typed = {**table, "type": spelled(table["type"], LINK_TYPES)}
            types[name] = reader.name(typed, "type", LINK_TYPES, f"link.{name}")
        elif isinstance(table, dict):
            reader.defaulted.append((f"link {name}.type", "none (reach not checked)"))
    return types


def invalidated_across(members: tuple[Member, ...] | list[Member], member: Member, cf_site: str) -> list[str]:
    """The sites of the members a page write of ``member`` to a group buffer pool at ``cf_site`` would
    cross-invalidate across the distance: every other member's away from the pool's CF (none: no
    cross-invalidation crosses, whatever ``xi_share`` says)."""
    return [m.site for m in members if m.name != member.name and m.site != cf_site]


def duplexed_page_writes(member: Member, structures: dict[str, Structure], pool: str) -> float:
    """``gbp_writes``' default: a member's requests per transaction to the secondary of the group buffer
    pool ``pool`` (the pages duplexed), 0 where it sends none."""
    return sum(count for name, count in member.requests.items() if structures[name].primary == pool)


def _xi_defaults(
    reader: _Reader,
    table: dict,
    member: Member,
    members: list[Member],
    structures: dict[str, Structure],
    cf_sites: dict[str, str],
    share: float | None,
) -> None:
    """Record as taken the cross-invalidation defaults a member's answer rests on, under synchronous
    and asynchronous XI alike: ``xi_share`` (0%) where one of its group buffer pools has members across
    the distance to invalidate (``share`` None: the file gives none), and where the file gives an
    ``xi_share`` above 0 but no ``gbp_writes``, the page writes it is paid on (its requests to the pool's
    secondary)."""
    crossing = [
        name
        for name in member.requests
        if structures[name].kind == "cache"
        and not structures[name].primary
        and invalidated_across(members, member, cf_sites[structures[name].cf])
    ]
    label = f"member {member.name}"
    if not crossing:
        return
    if share is None:
        reader.defaulted.append((f"{label}.xi_share", str(key_of("member", "xi_share").file_default)))
    elif share > 0 and "gbp_writes" not in table:
        writes = {f"{duplexed_page_writes(member, structures, pool):g}" for pool in crossing}
        shown = writes.pop() if len(writes) == 1 else "its requests to each pool's secondary"
        reader.defaulted.append((f"{label}.gbp_writes", shown))


def _protocols(
    reader: _Reader,
    data: dict,
    link_types: dict[str, str],
    structures: dict[str, Structure],
    members: list[Member],
    paths: list[CFPath],
    cf_sites: dict[str, str],
) -> Protocols:
    """The [disk], [[cf]] and [[member]] keys of today's hardware and protocols, each checked; a duplexing
    mode the structure cannot have, an unknown protocol or use is refused naming the key."""
    disk = reader.table(data, "disk")
    protocol = spelled(
        disk.get("mirror_protocol", key_of("disk", "mirror_protocol").file_default), METRO_MIRROR_PROTOCOLS
    )
    if "mirror_protocol" not in disk and disk.get("metro_mirror") is True:
        reader.defaulted.append(("disk.mirror_protocol", str(protocol)))
    if protocol not in METRO_MIRROR_PROTOCOLS:
        raise reader.error(
            "disk.mirror_protocol", _shown(protocol), "one of " + ", ".join(METRO_MIRROR_PROTOCOLS)
        )
    zhyperwrite = disk.get("zhyperwrite", key_of("disk", "zhyperwrite").file_default)
    if "zhyperwrite" not in disk and disk.get("metro_mirror") is True:  # it writes the Metro Mirror secondary
        reader.defaulted.append(("disk.zhyperwrite", "false"))
    if isinstance(zhyperwrite, str) and zhyperwrite.strip().lower() in ("true", "false"):  # a table cell
        zhyperwrite = zhyperwrite.strip().lower() == "true"
    if not isinstance(zhyperwrite, bool):
        raise reader.error("disk.zhyperwrite", _shown(zhyperwrite), "true or false")
    if zhyperwrite and not disk.get("metro_mirror", False):
        raise reader.error(
            "disk.zhyperwrite",
            "true",
            "false without metro_mirror",
            reason="zHyperWrite writes the Metro Mirror secondary: there is none",
        )
    duplexing, signal, async_xi = {}, {}, set()
    for table in reader.tables(data, "cf"):
        name = table["name"]
        modes = table.get("duplexing", {})
        if not isinstance(modes, dict):
            raise reader.error(f"cf {name}.duplexing", _shown(modes, "duplexing"), '{ LOCK1S = "async" }')
        modes = {structure: spelled(mode, DUPLEX_MODES) for structure, mode in modes.items()}
        for structure, mode in modes.items():
            label = f"cf {name}.duplexing.{structure}"
            found = structures.get(structure)
            if found is None or found.cf != name or not found.primary:
                raise reader.error(
                    label,
                    _shown(mode),
                    "a secondary structure of this CF ('secondary of PRIMARY' in its structures)",
                )
            try:
                check_duplex_mode(str(mode), found.kind, label)
            except InputError as refused:
                raise reader.error(label, _shown(mode), refused.allowed) from None
        for structure in (s for s in structures.values() if s.cf == name and s.primary and s.kind != "cache"):
            mode = str(modes.get(structure.name, "sync"))
            if mode != "simplex":  # declared but not duplexed (CFRM DUPLEX(ALLOWED), not started)
                duplexing[structure.name] = mode
        if "signal_service" in table:
            signal[name] = reader.value(table, "cf", "signal_service", f"cf {name}")
        xi = table.get("cross_invalidation", {})
        if not isinstance(xi, dict):
            raise reader.error(
                f"cf {name}.cross_invalidation", _shown(xi, "cross_invalidation"), '{ GBPP = "async" }'
            )
        xi = {structure: spelled(mode, CROSS_INVALIDATION) for structure, mode in xi.items()}
        for structure, mode in xi.items():
            label = f"cf {name}.cross_invalidation.{structure}"
            found = structures.get(structure)
            if found is None or found.cf != name or found.kind != "cache" or found.primary:
                raise reader.error(
                    label, _shown(mode), "a group buffer pool (cache structure) of this CF, its primary"
                )
            if mode not in CROSS_INVALIDATION:
                raise reader.error(label, _shown(mode), "sync or async")
            if mode == "async":
                async_xi.add(structure)
        crossing = (
            s.name
            for s in structures.values()
            if s.cf == name and s.kind == "cache" and not s.primary and s.name not in xi
            if any(s.name in m.requests and invalidated_across(members, m, cf_sites[name]) for m in members)
        )
        for structure_name in crossing:  # the mode xi_share is paid in, taken where xi_share is
            reader.defaulted.append((f"cf {name}.cross_invalidation.{structure_name}", "sync"))
    members_read = {m["name"]: m for m in reader.tables(data, "member")}
    zhyperlink, xi_share, gbp_writes = {}, {}, {}
    for member in members:
        table = members_read[member.name]
        use = spelled(table.get("zhyperlink", key_of("member", "zhyperlink").default), ZHYPERLINK_USES)
        if "zhyperlink" not in table:
            reader.defaulted.append((f"member {member.name}.zhyperlink", str(use)))
        if use not in ZHYPERLINK_USES:
            raise reader.error(f"member {member.name}.zhyperlink", _shown(use), ", ".join(ZHYPERLINK_USES))
        if use != "none":
            zhyperlink[member.name] = use
        if "xi_share" in table:
            xi_share[member.name] = reader.value(table, "member", "xi_share", f"member {member.name}")
        if "gbp_writes" in table:
            gbp_writes[member.name] = reader.value(table, "member", "gbp_writes", f"member {member.name}")
        _xi_defaults(reader, table, member, members, structures, cf_sites, xi_share.get(member.name))
        for structure in member.requests:
            secondary = next(
                (
                    s
                    for s in structures.values()
                    if s.primary == structure and duplexing.get(s.name) == "sync"
                ),
                None,
            )
            if secondary is not None and not any(
                p.member == member.name and p.cf == secondary.cf for p in paths
            ):
                raise reader.error(
                    f"member {member.name}.requests.{structure}",
                    _shown(member.requests[structure]),
                    f"a [[path]] from {member.name} to {secondary.cf}",
                    reason=f"z/OS sends each request to both structures of the "
                    f"synchronously duplexed {structure}",
                )
    uses = set(zhyperlink.values())
    timed = "a time with its unit, e.g. 20us (RMF 74-1 synchronous I/O)"
    read = write = hit = None
    if uses & {"reads", "all"}:
        read = reader.value(disk, "disk", "zhyperlink_read", "disk", allowed=timed)
        hit = reader.value(disk, "disk", "read_hit", "disk", allowed="a share, e.g. 95% (RMF cache report)")
    if uses & {"writes", "all"}:
        write = reader.value(disk, "disk", "zhyperlink_write", "disk", allowed=timed)
    return Protocols(
        link_types=link_types,
        mirror_protocol=protocol,
        zhyperwrite=zhyperwrite,
        duplexing=duplexing,
        signal_service=signal,
        async_xi=frozenset(async_xi),
        xi_share=xi_share,
        gbp_writes=gbp_writes,
        zhyperlink=zhyperlink,
        zhyperlink_read=read,
        zhyperlink_write=write,
        zhyperlink_miss=reader.value(disk, "disk", "zhyperlink_miss", "disk") if uses else 0.0,
        read_hit=hit,
    )


def defaults_taken(scenario: Scenario, said: tuple[str, ...] = ()) -> str:
    """The values the answer rests on that the file did not give, in a sentence, less the keys ``said``
    elsewhere; "" where the file gives every one. A key of the same name on several members or paths is
    said once: with one default, how many take it (``path.*.background_rate 0 (8 paths)``); with several,
    whose each is (``member.*.gbp_writes 12 (NA1), 10 (NA2, SB1)``); a key only one takes, as the file
    would name it (``member G1P1.xi_share 0%``)."""
    taken: dict[str, dict[str, list[str]]] = {}  # key as said -> default -> the keys taking it
    for key, value in scenario.defaults:
        if key in said:
            continue
        owner, _, name = key.rpartition(".")
        kind = owner.split(" ")[0] if " " in owner else ""
        shown = f"{kind}.*.{name}" if kind in ("member", "path", "link") else key
        taken.setdefault(shown, {}).setdefault(value, []).append(key)
    parts = []
    for shown, values in taken.items():
        keys = [key for taking in values.values() for key in taking]
        if len(keys) == 1:
            parts.append(f"{keys[0]} {next(iter(values))}")
        elif len(values) == 1:
            parts.append(f"{shown} {next(iter(values))} ({len(keys)} {shown.split('.')[0]}s)")
        else:
            whose = {
                value: ", ".join(key.rpartition(".")[0].partition(" ")[2] for key in taking)
                for value, taking in values.items()
            }
            parts.append(shown + " " + ", ".join(f"{value} ({owners})" for value, owners in whose.items()))
    return "Defaults taken for keys the file leaves out: " + ", ".join(parts) + "." if parts else ""
