"""A scenario file: a Parallel Sysplex configuration at a distance, in the words of the field.

Layout (every value with its unit; bare numbers are in the unit shown)::

    title = "GDPS/PPRC Environment 3"
    sites = ["site1", "site2"]
    distance = "0km..100km"                 # between the sites: a value, a list or a range

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
    # optional: IOSQ computed instead of given (pav_iosq: M/M/c with 1 + aliases per volume)
    # volumes = 40; aliases = 3; background_rate = 212    # SSCH/s of other work, served like writes

    [conversion]                             # CF sync → async (estimate: z/OS's heuristic)
    threshold = "150us"
    redispatch = "0us"
    async_cpu = "20us"

    [locks]                                  # lock contention (Tay's model)
    lockable_items = 2000
    resolution_round_trips = 2

    [distribution]                           # the variable part of the response time
    shape = 2                                # Erlang shape (1: exponential)

    [[calibration]]                          # what was fitted, on which rows (free text)
    parameter = "member.other"
    fitted_on = "0 km column"

Nothing in the file is evaluated: names are looked up in the file itself,
values are read by :func:`qmodel.units.parse_value`. Every error names the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qmodel.errors import CatalogueError, InputError
from qmodel.units import UNITS, parse_list, parse_value, split_number, split_range

STRUCTURE_KINDS = ("lock", "cache", "list")
SECONDARY = "secondary of "
TOP_KEYS = {
    "title",
    "source",
    "sites",
    "distance",
    "fibre_speed",
    "goal",
    "member",
    "cf",
    "path",
    "link",
    "disk",
    "conversion",
    "locks",
    "distribution",
    "calibration",
}
MEMBER_KEYS = {
    "name",
    "site",
    "logical_cps",
    "terminals",
    "think_time",
    "cpu",
    "other",
    "sync_reads",
    "log_writes",
    "requests",
    "tpno_share",
}
PATH_KEYS = {"member", "cf", "link", "subchannels", "background_rate"}
IO_KEYS = ("conn", "disc", "pend", "iosq")
MAX_DISTANCES = 100_000


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
class Scenario:
    """A checked scenario file, values in SI units."""

    title: str
    sites: tuple[str, ...]
    distances: np.ndarray  # m
    fibre_speed: float  # m/s
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
    threshold: float
    redispatch: float
    async_cpu: float
    lockable_items: float
    resolution_round_trips: float
    shape: int
    calibration: tuple[dict[str, str], ...] = ()
    source: str = ""

    def member(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)

    def path(self, member: str, cf: str) -> CFPath:
        return next(p for p in self.paths if p.member == member and p.cf == cf)




def _shown(value: object, key: str) -> str:
    """A value as a message shows it: a table by its name ([key] table), not its contents cut short."""
    if isinstance(value, dict):
        return f"a [{key}] table"
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return f"[[{key}]] tables"
    text = repr(value)
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

    def error(self, key: str, value: object, allowed: str, reason: str = "") -> InputError:
        return InputError(f"{self.where}: {key}", value, allowed, reason=reason)

    def table(self, data: dict, key: str, *, required: bool = True) -> dict:
        value = data.get(key, {} if not required else None)
        if not isinstance(value, dict):
            raise self.error(key, "missing" if value is None else _shown(value, key), f"a [{key}] table")
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
    ) -> float:
        """A value in ``unit`` read in the unit dialect, converted to SI; must be ≥ lower (> if strict)."""
        text = table.get(key, default)
        label = f"{name}.{key}" if name else key
        if text is None:
            raise self.error(label, "missing", f"a value in {unit}")
        if UNITS[unit].dimension not in ("count", "ratio", "rate") and _bare_nonzero(text):
            raise self.error(
                label,
                text,
                f'a value with its unit, e.g. "{text}{unit}"',
                reason="a bare number is ambiguous here: write the unit",
            )
        value = parse_value(label, text, unit) * UNITS[unit].to_si
        if not np.isfinite(value) or value < lower or (strict and value == lower):
            shown_unit = "" if unit == "1" else f" {unit}"
            raise self.error(label, text, f"{'>' if strict else '>='} {lower:g}{shown_unit}")
        return value

    def whole(self, table: dict, key: str, name: str, *, default: int | None = None, lower: int = 1) -> int:
        value = table.get(key, default)
        label = f"{name}.{key}"
        if isinstance(value, bool) or not isinstance(value, int) or value < lower:
            raise self.error(
                label, repr(value) if value is not None else "missing", f"a whole number >= {lower}"
            )
        return value

    def name(self, table: dict, key: str, choices, name: str) -> str:
        value = table.get(key)
        if value not in choices:
            raise self.error(
                f"{name}.{key}",
                repr(value) if value is not None else "missing",
                "one of " + ", ".join(sorted(choices)),
            )
        return value


def _distances(reader: _Reader, text: object) -> np.ndarray:
    """A distance, a list of distances, or a range ``START..STOP`` (21 points), in m. A number
    written without its unit is refused (``70`` could be km or miles); text takes the dialect of
    :func:`parse_distances`."""
    if isinstance(text, str):
        return parse_distances(text, f"{reader.where}: distance")
    items = text if isinstance(text, list) else [text]
    if not items:
        raise reader.error("distance", "[]", "at least one distance")
    values = np.array([reader.quantity({"distance": item}, "distance", "km", "") for item in items])
    return values


def parse_distances(text: str, where: str = "--distance", points: int = 21) -> np.ndarray:
    """Distances as typed: ``70km``, ``20,40,70km`` or ``0..100km`` (``points`` points), in m.

    Lists and ranges are those of the unit dialect (:func:`qmodel.units.parse_list`,
    :func:`qmodel.units.split_range`): a unit written on the last item applies to the bare ones,
    and a bare number is in km.
    """
    ends = split_range(where, text)
    if ends is not None:
        low, high = parse_list(where, ",".join(ends), "km")
        if not high > low:
            raise InputError(where, text, "START..STOP with STOP beyond START")
        if not 2 <= points <= MAX_DISTANCES:
            raise InputError("--points", points, f"2 to {MAX_DISTANCES:,}")
        values = np.linspace(low, high, points)
    else:
        values = np.array(parse_list(where, text, "km"))
    if (values < 0).any() or not np.isfinite(values).all():
        raise InputError(where, text, "finite distances >= 0 km")
    return values * UNITS["km"].to_si


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; InputError naming the key of anything wrong."""
    from qmodel.tomlread import read_toml

    path = Path(path)
    if not path.is_file():
        reason = "a directory" if path.is_dir() else "no such file"
        raise InputError("scenario", str(path), "an existing scenario file (.toml)", reason=reason)
    try:
        data = read_toml(path)
    except UnicodeDecodeError:
        raise InputError("scenario", str(path), "a UTF-8 TOML file", reason="not UTF-8") from None
    except CatalogueError as error:
        hint = ""
        if "Cannot overwrite a value" in str(error) or "Cannot declare" in str(error):
            hint = ("; members, CFs and paths are written [[member]], [[cf]], [[path]] (double brackets), "
                    "one per item, never [member] as well")
        raise InputError("scenario", str(path), "a TOML file", reason=f"{error}{hint}") from None
    return scenario_from_dict(data, path.name)


def scenario_from_dict(data: dict, where: str = "scenario") -> Scenario:
    """Check a parsed scenario (the TOML tables) and convert every value to SI."""
    reader = _Reader(where)
    reader.known(data, TOP_KEYS, "scenario")
    sites = data.get("sites")
    if (
        not isinstance(sites, list)
        or not sites
        or not all(isinstance(s, str) for s in sites)
        or len(set(sites)) != len(sites)
    ):
        raise reader.error(
            "sites", "missing" if sites is None else _shown(sites, "sites"),
            'a list of distinct site names, e.g. ["site1", "site2"]',
        )
    if len(sites) > 2:
        raise reader.error("sites", repr(sites), "one or two sites (the distance is between two)")
    distances = _distances(reader, data.get("distance", "0km"))
    fibre_speed = reader.quantity(data, "fibre_speed", "km/s", "", default="200000km/s", strict=True)
    goal = reader.table(data, "goal")
    goal_time = reader.quantity(goal, "response_time", "ms", "goal", strict=True)
    goal_share = reader.quantity(goal, "share", "ratio", "goal", strict=True)
    if goal_share > 1:
        raise reader.error("goal.share", goal.get("share"), "a share up to 100%")

    cf_sites: dict[str, str] = {}
    structures: dict[str, Structure] = {}
    for index, table in enumerate(reader.tables(data, "cf"), 1):
        label = f"cf[{index}]"
        reader.known(table, {"name", "site", "structures"}, label)
        name = table.get("name")
        if not isinstance(name, str) or not name or name in cf_sites:
            raise reader.error(f"{label}.name", repr(name), "a name, different for each CF")
        cf_sites[name] = reader.name(table, "site", sites, f"cf {name}")
        given = table.get("structures")
        if not isinstance(given, dict) or not given:
            raise reader.error(f"cf {name}.structures", repr(given), '{ LOCK1 = "lock", GBP8P = "cache" }')
        for structure, kind in given.items():
            if structure in structures:
                raise reader.error(f"cf {name}.structures.{structure}", kind, "each structure in one CF")
            primary = ""
            if isinstance(kind, str) and kind.startswith(SECONDARY):
                primary = kind.removeprefix(SECONDARY)
                kind = "cache"
            if kind not in STRUCTURE_KINDS:
                raise reader.error(
                    f"cf {name}.structures.{structure}",
                    repr(kind),
                    "lock, cache, list, or 'secondary of PRIMARY'",
                )
            structures[structure] = Structure(structure, name, kind, primary)
    for structure in structures.values():
        if structure.primary and (
            structure.primary not in structures or structures[structure.primary].primary
        ):
            raise reader.error(
                f"cf {structure.cf}.structures.{structure.name}",
                f"secondary of {structure.primary}",
                "the secondary of a primary structure declared in a [[cf]]",
            )

    links: dict[str, dict[str, dict[str, float]]] = {}
    for link_name, table in reader.table(data, "link").items():
        if not isinstance(table, dict):
            raise reader.error(
                f"link.{link_name}", repr(table)[:40], "a [link.NAME] table with sync and async"
            )
        reader.known(table, {"sync", "async", "converted"}, f"link.{link_name}")
        links[link_name] = {}
        for mode in ("sync", "async", "converted"):
            times = table.get(mode, {})
            if not isinstance(times, dict):
                raise reader.error(f"link.{link_name}.{mode}", repr(times), '{ lock = "7us", cache = "9us" }')
            for kind in times:
                if kind not in STRUCTURE_KINDS:
                    raise reader.error(
                        f"link.{link_name}.{mode}.{kind}", times[kind], ", ".join(STRUCTURE_KINDS)
                    )
            unit = "ratio" if mode == "converted" else "us"
            links[link_name][mode] = {
                kind: reader.quantity(
                    times, kind, unit, f"link.{link_name}.{mode}", strict=mode != "converted"
                )
                for kind in times
            }

    members = []
    for index, table in enumerate(reader.tables(data, "member"), 1):
        name = table.get("name")
        label = f"member {name}" if isinstance(name, str) and name else f"member[{index}]"
        reader.known(table, MEMBER_KEYS, label)
        if not isinstance(name, str) or not name or any(m.name == name for m in members):
            raise reader.error(f"{label}.name", repr(name), "a name, different for each member")
        requests = table.get("requests", {})
        if not isinstance(requests, dict):
            raise reader.error(
                f"{label}.requests", repr(requests), "{ STRUCTURE = requests per transaction }"
            )
        for structure in requests:
            if structure not in structures:
                raise reader.error(
                    f"{label}.requests.{structure}",
                    requests[structure],
                    "a structure of a [[cf]]: " + ", ".join(structures),
                    reason="unknown structure",
                )
        members.append(
            Member(
                name=name,
                site=reader.name(table, "site", sites, label),
                logical_cps=reader.whole(table, "logical_cps", label),
                terminals=reader.whole(table, "terminals", label),
                think_time=reader.quantity(table, "think_time", "s", label, strict=True),
                cpu=reader.quantity(table, "cpu", "ms", label),
                other=reader.quantity(table, "other", "ms", label, default=0),
                sync_reads=reader.quantity(table, "sync_reads", "1", label, default=0),
                log_writes=reader.quantity(table, "log_writes", "1", label, default=0),
                requests={s: reader.quantity(requests, s, "1", f"{label}.requests") for s in requests},
                tpno_share=reader.quantity(table, "tpno_share", "ratio", label, default=1),
            )
        )
        if members[-1].tpno_share > 1:
            raise reader.error(f"{label}.tpno_share", table.get("tpno_share"), "a share up to 100%")
    member_names = {m.name for m in members}

    paths = []
    for index, table in enumerate(reader.tables(data, "path"), 1):
        label = f"path[{index}]"
        reader.known(table, PATH_KEYS, label)
        member = reader.name(table, "member", member_names, label)
        cf = reader.name(table, "cf", set(cf_sites), label)
        if any(p.member == member and p.cf == cf for p in paths):
            raise reader.error(f"{label}", f"{member} → {cf}", "one [[path]] per member and CF")
        paths.append(
            CFPath(
                member,
                cf,
                reader.name(table, "link", set(links), label),
                reader.whole(table, "subchannels", label, default=7),
                reader.quantity(table, "background_rate", "1/s", label, default=0),
            )
        )
    for member in members:
        for structure in member.requests:
            cf = structures[structure].cf
            if not any(p.member == member.name and p.cf == cf for p in paths):
                raise reader.error(
                    f"member {member.name}.requests.{structure}",
                    member.requests[structure],
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

    disk = reader.table(data, "disk")
    reader.known(
        disk,
        {
            "primary_site",
            "secondary_site",
            "metro_mirror",
            "pprc_overhead",
            "read",
            "write",
            "volumes",
            "aliases",
            "background_rate",
        },
        "disk",
    )
    metro_mirror = disk.get("metro_mirror", False)
    if not isinstance(metro_mirror, bool):
        raise reader.error("disk.metro_mirror", repr(metro_mirror), "true or false")
    primary = reader.name(disk, "primary_site", sites, "disk")
    secondary = reader.name(disk, "secondary_site", sites, "disk") if metro_mirror else primary
    io = {}
    for kind in ("read", "write"):
        table = reader.table(disk, kind)
        reader.known(table, set(IO_KEYS), f"disk.{kind}")
        io[kind] = IOTimes(*(reader.quantity(table, key, "ms", f"disk.{kind}", default=0) for key in IO_KEYS))

    conversion = reader.table(data, "conversion")
    reader.known(conversion, {"threshold", "redispatch", "async_cpu"}, "conversion")
    locks = reader.table(data, "locks", required=False)
    reader.known(locks, {"lockable_items", "resolution_round_trips"}, "locks")
    distribution = reader.table(data, "distribution", required=False)
    reader.known(distribution, {"shape"}, "distribution")
    calibration = data.get("calibration", [])
    if not isinstance(calibration, list) or not all(isinstance(c, dict) for c in calibration):
        raise reader.error("calibration", repr(calibration)[:40], "[[calibration]] tables")
    title = data.get("title", where)
    return Scenario(
        title=str(title),
        sites=tuple(sites),
        distances=distances,
        fibre_speed=fibre_speed,
        goal_time=goal_time,
        goal_share=goal_share,
        members=tuple(members),
        cf_sites=cf_sites,
        structures=structures,
        paths=tuple(paths),
        links=links,
        primary_site=primary,
        secondary_site=secondary,
        metro_mirror=metro_mirror,
        pprc_overhead=reader.quantity(disk, "pprc_overhead", "ms", "disk", default=0)
        if metro_mirror
        else 0.0,
        read=io["read"],
        write=io["write"],
        volumes=reader.whole(disk, "volumes", "disk") if "volumes" in disk else None,
        aliases=reader.whole(disk, "aliases", "disk", default=0, lower=0),
        disk_background=reader.quantity(disk, "background_rate", "1/s", "disk", default=0),
        threshold=reader.quantity(conversion, "threshold", "us", "conversion", strict=True),
        redispatch=reader.quantity(conversion, "redispatch", "us", "conversion", default=0),
        async_cpu=reader.quantity(conversion, "async_cpu", "us", "conversion", default=0),
        lockable_items=(
            reader.quantity(locks, "lockable_items", "1", "locks", strict=True)
            if "lockable_items" in locks
            else np.inf
        ),
        resolution_round_trips=reader.quantity(locks, "resolution_round_trips", "1", "locks", default=0),
        shape=reader.whole(distribution, "shape", "distribution", default=1),
        calibration=tuple({str(k): str(v) for k, v in c.items()} for c in calibration),
        source=str(data.get("source", "")),
    )
