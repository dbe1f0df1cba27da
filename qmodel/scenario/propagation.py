"""What the distance between the sites adds to a CF request, an I/O, a Metro Mirror write and a CF-to-CF
signal, in one place; and its inverse: a file's RMF times read with the sites ``measured_at`` apart,
brought to 0 km (:func:`at_zero_km`).

The composed solver (:mod:`qmodel.scenario.compose`) times each at a distance with these functions, the
round trips as the GDPS study counts them (gdps-pprc-100km-2006.txt, 'Montpellier Test Environments':
an I/O or CF message is elongated by about 10 µs/km per round trip):

- a CF request: one round trip between the member's site and its CF's (``cf_request_at_distance``);
- a synchronous read or write from a member at the other site than the primary disks: one round trip,
  in PEND (``distance_growth``, :func:`io_time`);
- a Metro Mirror write: the PPRC overhead and the protocol's round trips from the primary to the
  secondary, in DISC (``pprc_write_cost``, :func:`mirror_cost`);
- a CF-to-CF signal of a duplexed structure: one round trip between the two CFs
  (``duplexed_cf_request``, :mod:`qmodel.scenario.protocols`);

every round trip between the sites lengthened by the route's equipment (``crossing_latency``,
:func:`separation`). Units: SI (s, m).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from qmodel.catalogue.evaluate import calc
from qmodel.scenario import protocols as today
from qmodel.scenario.protocols import RoundTrip
from qmodel.scenario.spec import IOTimes, Scenario, ScenarioError
from qmodel.units import significant


def evaluate_si(formula_id: str, **inputs: npt.ArrayLike) -> dict[str, np.ndarray]:
    """A catalogue entry on SI inputs, its outputs by name in SI (domains and constraints checked)."""
    return calc(formula_id, units="si", **inputs).outputs


def separation(scenario: Scenario, distances: np.ndarray, site_a: str, site_b: str) -> np.ndarray:
    """The fibre distance (m) a request from ``site_a`` to ``site_b`` crosses: none within a site; between
    the sites the distance, lengthened at every distance above 0 by the ``crossing_latency`` of the
    route's equipment as the fibre that would take as long (latency × fibre_speed / 2 per one-way
    length: every formula of the propagation is linear in 2 d / v, so each round trip gains exactly the
    latency)."""
    if site_a == site_b:
        return np.zeros_like(distances)
    equipment = scenario.crossing_latency * scenario.fibre_speed / 2  # m of fibre as long as the equipment
    return np.where(distances > 0, distances + equipment, distances)


def round_trips(scenario: Scenario, distances: np.ndarray) -> RoundTrip:
    """The round trip (D,) s between two sites at each of ``distances`` (m), the crossings' included
    (``round_trip_time`` over :func:`separation`)."""

    def round_trip(site_a: str, site_b: str) -> np.ndarray:
        return evaluate_si(
            "round_trip_time",
            distance=separation(scenario, distances, site_a, site_b),
            fibre_speed=scenario.fibre_speed,
        )["round_trip_time"]

    return round_trip


def io_time(
    scenario: Scenario, times: IOTimes, remote: np.ndarray, mirror: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """(RMF response time, its propagation) of one I/O issued ``remote`` m from the primary disk:
    PEND gains one round trip (``distance_growth``), DISC the Metro Mirror cost (``mirror``),
    RESP = CONN + DISC + PEND + IOSQ (``rmf_response_time``). Seconds."""
    pend = pend_at(scenario, times.pend, remote)
    response = evaluate_si(
        "rmf_response_time", conn=times.conn, disc=times.disc + mirror, pend=pend, iosq=times.iosq
    )["resp"]
    return response, pend - times.pend


def pend_at(scenario: Scenario, pend: float, remote: np.ndarray) -> np.ndarray:
    """The PEND (s) of an I/O issued ``remote`` m from the primary disks, ``pend`` its PEND at 0 km: one
    round trip more (``distance_growth``)."""
    return evaluate_si(
        "distance_growth", time_at_zero=pend, distance=remote, round_trips=1, fibre_speed=scenario.fibre_speed
    )["time_at_distance"]


def mirror_cost(scenario: Scenario, distances: np.ndarray) -> np.ndarray:
    """(D,) s the Metro Mirror adds to the DISC of a write at each of ``distances`` (m): the PPRC overhead
    and the protocol's round trips from the primary disks to the secondary (``pprc_write_cost``)."""
    return evaluate_si(
        "pprc_write_cost",
        sync_writes=1,
        base_overhead=scenario.pprc_overhead,
        distance=separation(scenario, distances, scenario.primary_site, scenario.secondary_site),
        mirror_round_trips=today.mirror_round_trips(scenario.protocols),
        fibre_speed=scenario.fibre_speed,
    )["write_cost"]


def cf_request(
    scenario: Scenario, link: str, kind: str, distance: np.ndarray | float
) -> dict[str, np.ndarray]:
    """A ``kind`` request over the link type ``link`` crossing ``distance`` m of fibre (its
    propagation's, :func:`separation`): ``cf_request_at_distance``'s outputs (sync and async service,
    the fraction converted, the time waited, CPU), from the link's service at 0 km."""
    times = scenario.links[link]
    return evaluate_si(
        "cf_request_at_distance",
        sync_service_at_zero=times["sync"][kind],
        async_service_at_zero=times["async"][kind],
        converted_at_zero=times["converted"].get(kind, 0.0),
        distance=distance,
        threshold=scenario.threshold,
        redispatch=scenario.redispatch,
        async_cpu=scenario.async_cpu,
        fibre_speed=scenario.fibre_speed,
    )


# ---- times measured at a distance, brought to 0 km ----


def disk_site(scenario: Scenario) -> str:
    """The site whose members' RMF device activity the file's [disk] read and write times are: the primary
    disks' where a member runs there (no round trip to the disks in them), else the members' own."""
    sites = {m.site for m in scenario.members}
    return scenario.primary_site if scenario.primary_site in sites else min(sites)


def at_zero_km(scenario: Scenario) -> Scenario:
    """``scenario`` with its RMF times as at 0 km: each time the file gives as read with the sites
    ``measured_at`` apart, less exactly what the model adds to it at that distance (the functions above,
    each at the measured distance). At ``measured_at`` 0 the scenario itself.

    - a link type's sync and async service: the round trip of its paths, where they cross between the
      sites (a link used on paths within a site and between them is refused: its times cannot be both;
      a converted share given on a link between the sites is refused: the model estimates conversion
      at the distance from conversion.threshold, it does not infer it);
    - the [disk] read and write PEND: the round trip from the members' site (:func:`disk_site`) to the
      primary disks; the castout write's from its owner's site;
    - the PPRC overhead: the Metro Mirror's round trips from the primary disks to the secondary;
    - a CF's signal service: the round trip to the CF of the primaries it duplexes.

    ScenarioError, naming the file, the key, the value, the distance and what is allowed (:func:`_less`:
    how much of it is crossing_latency), where a link is used both
    ways or a time is no longer above 0 (at least 0 for a PEND or the PPRC overhead) once the model's
    round trips are taken off: the times and the distance do not agree.
    """
    if scenario.measured_at == 0:
        return scenario
    key = _measured(scenario)
    changes = _AT_ZERO.get(key)
    if changes is None:
        changes = _times_at_zero(scenario)
        if len(_AT_ZERO) >= _AT_ZERO_SIZE:
            del _AT_ZERO[next(iter(_AT_ZERO))]  # the oldest
        _AT_ZERO[key] = changes
    fields = {name: value for name, value in changes.items() if name != "signal_service"}
    protocols = replace(scenario.protocols, signal_service=changes["signal_service"])
    return replace(scenario, **fields, protocols=protocols, measured_at=0.0)


# The times at 0 km of the last scenarios seen, by everything they are computed from (:func:`_measured`):
# a goal seek, a band or a fit solves one sysplex many times, its members, locks or route varied.
_AT_ZERO: dict[tuple, dict[str, Any]] = {}
_AT_ZERO_SIZE = 64


def _measured(scenario: Scenario) -> tuple:
    """Everything :func:`_times_at_zero` reads of ``scenario``, hashable."""
    protocols = scenario.protocols
    return (
        scenario.measured_at,
        scenario.fibre_speed,
        scenario.crossing_latency,
        (scenario.threshold, scenario.redispatch, scenario.async_cpu),
        tuple((n, mode, tuple(t.items())) for n, link in scenario.links.items() for mode, t in link.items()),
        tuple((p.member, p.cf, p.link) for p in scenario.paths),
        tuple((m.name, m.site) for m in scenario.members),
        tuple(scenario.cf_sites.items()),
        tuple((s.name, s.cf, s.primary) for s in scenario.structures.values()),
        (scenario.primary_site, scenario.secondary_site, scenario.metro_mirror, scenario.pprc_overhead),
        (scenario.read, scenario.write, scenario.castout_write, scenario.castout_owner),
        (protocols.mirror_protocol, tuple(protocols.signal_service.items())),
    )


def _times_at_zero(scenario: Scenario) -> dict[str, Any]:
    """The fields of :func:`at_zero_km`'s scenario that change, by name (``signal_service``: its
    protocols')."""
    distance = np.array([scenario.measured_at])
    round_trip = round_trips(scenario, distance)
    checks: list[_Check] = []  # every time taken off, judged together at the end (_judged)
    links = {name: _link_at_zero(scenario, name, distance, checks) for name in scenario.links}
    changes: dict[str, Any] = {"links": links}
    site = disk_site(scenario)
    for name in ("read", "write"):
        changes[name] = _io_at_zero(scenario, f"disk.{name}", getattr(scenario, name), site, distance, checks)
    if scenario.castout_write is not None and scenario.castout_owner is not None:
        owner = scenario.member(scenario.castout_owner).site
        changes["castout_write"] = _io_at_zero(
            scenario, "disk.castout_write", scenario.castout_write, owner, distance, checks
        )
    if scenario.metro_mirror:
        added = float(mirror_cost(scenario, distance)[0]) - scenario.pprc_overhead
        mirror_trips = today.mirror_round_trips(scenario.protocols)
        changes["pprc_overhead"] = _less(
            scenario,
            checks,
            "disk.pprc_overhead",
            scenario.pprc_overhead,
            added,
            0.0,
            round_trips=mirror_trips,
        )
    signal = {}
    for cf, service in scenario.protocols.signal_service.items():
        peers = {
            scenario.cf_sites[scenario.structures[s.primary].cf]
            for s in scenario.structures.values()
            if s.cf == cf and s.primary
        }
        trips = {float(round_trip(scenario.cf_sites[cf], peer)[0]) for peer in peers} or {0.0}
        if len(trips) > 1:
            raise ScenarioError(
                scenario.where,
                f"cf {cf}.signal_service",
                f"{_us(service)} measured at {_km(scenario)}",
                "measured_at 0km, or the secondaries of one site's CFs on each CF",
                reason="it duplexes structures of CFs at both sites: its signals measured at a distance "
                "cannot be both",
            )
        signal[cf] = _less(scenario, checks, f"cf {cf}.signal_service", service, trips.pop(), 0.0)
    changes["signal_service"] = signal
    _judged(scenario, checks)
    return changes


def _link_at_zero(
    scenario: Scenario, link: str, distance: np.ndarray, checks: list[_Check]
) -> dict[str, dict[str, float]]:
    """The link type's times at 0 km: its service less the round trip of its paths (one kind: all within
    a site, or all between the sites)."""
    paths = [p for p in scenario.paths if p.link == link]
    crossing = [p for p in paths if scenario.member(p.member).site != scenario.cf_sites[p.cf]]
    times = scenario.links[link]
    if not crossing:
        return times
    within = next((p for p in paths if p not in crossing), None)
    if within is not None:
        raise ScenarioError(
            scenario.where,
            f"link.{link}",
            f"used within a site ({within.member}→{within.cf}) and between the sites "
            f"({crossing[0].member}→{crossing[0].cf}), measured at {_km(scenario)}",
            "a [link.NAME] for the paths within a site and another for those between the sites, each "
            "with its own times (the RMF CF activity report gives each system's service per CF), or "
            "measured_at 0km",
            reason="a round trip is in the one and not in the other",
        )
    if times["converted"]:
        kind = next(iter(times["converted"]))
        raise ScenarioError(
            scenario.where,
            f"link.{link}.converted.{kind}",
            f"{times['converted'][kind]:.0%} measured at {_km(scenario)}",
            "left out on a link between the sites measured at a distance (the model estimates the "
            "share converted there from conversion.threshold), or measured_at 0km",
            reason="the share converted at 0 km is not inferred from one at a distance",
        )
    timed = [kind for kind in times["sync"] if kind in times["async"]]  # a kind with one is used by none
    if not timed:
        return times
    member, cf = crossing[0].member, crossing[0].cf
    fibre = separation(scenario, distance, scenario.member(member).site, scenario.cf_sites[cf])
    added = float(cf_request(scenario, link, timed[0], fibre)["propagation"][0])  # the same for each kind
    less = partial(_less, scenario, checks)
    return {
        "sync": {k: less(f"link.{link}.sync.{k}", t, added) for k, t in times["sync"].items()},
        "async": {k: less(f"link.{link}.async.{k}", t, added) for k, t in times["async"].items()},
        "converted": {},
    }


def _io_at_zero(
    scenario: Scenario, key: str, times: IOTimes, site: str, distance: np.ndarray, checks: list[_Check]
) -> IOTimes:
    """An I/O's RMF times at 0 km: PEND less the round trip from ``site`` to the primary disks."""
    remote = separation(scenario, distance, site, scenario.primary_site)
    added = float(pend_at(scenario, times.pend, remote)[0]) - times.pend
    return replace(times, pend=_less(scenario, checks, f"{key}.pend", times.pend, added, 0.0))


class _Check(NamedTuple):
    """A time the file measured at ``measured_at`` with the model's round trips taken off, and the refusal
    it gives (None: it holds)."""

    key: str
    measured: float  # s, as the file gives it
    fibre: float  # s of the round trips' fibre at measured_at
    round_trips: float  # between the sites, each paying crossing_latency once
    lowest: float | None  # the least it may be at 0 km (None: above 0)
    refused: ScenarioError | None


def _less(
    scenario: Scenario,
    checks: list[_Check],
    key: str,
    measured: float,
    added: float,
    lowest: float | None = None,
    round_trips: float = 1.0,
) -> float:
    """``measured`` less ``added`` (s), the model's ``round_trips`` between the sites at the measured
    distance: above 0 (``lowest`` None) or at least ``lowest``; the time with its refusal recorded in
    ``checks`` (judged by :func:`_judged` once every time is taken off). The refusal names the file, the
    key, the value, the distance and what is allowed, with the part of ``added`` that is
    crossing_latency (each round trip's, exactly: :func:`separation`), whether it is the default, and
    ``crossing_latency = "0us"`` where the time would be possible without it (fibre with no DWDM)."""
    value = measured - added
    round_trips = round_trips if added > 0 else 0.0  # within a site: no round trip between the sites
    crossing = round_trips * scenario.crossing_latency
    fibre = added - crossing
    if value > 0 or (lowest is not None and value >= lowest - 1e-15):
        checks.append(_Check(key, measured, fibre, round_trips, lowest, None))
        return max(value, 0.0)
    bound = "above" if lowest is None else "at least"
    parts = f"2 × distance / fibre_speed each, crossing_latency {_us(scenario.crossing_latency)}"
    advice = ""
    if crossing > 0:
        parts = f"{_us(fibre)} of fibre and {_us(crossing)} of crossing_latency, {_whose_crossing(scenario)}"
        if value + crossing > 0 or (lowest is not None and value + crossing >= lowest - 1e-15):
            advice = (
                '; or crossing_latency = "0us" where the route has no DWDM or other equipment (dark '
                f"fibre), with which {_us(measured)} is possible"
            )
    refused = ScenarioError(
        scenario.where,
        key,
        f"{_us(measured)} measured at {_km(scenario)}",
        f"{bound} {_us(added)}, the round trips the model adds at {_km(scenario)} ({parts}){advice}; or "
        "measured_at the distance the times were read at",
        reason="less than the round trips alone: the times and the distance do not agree",
    )
    checks.append(_Check(key, measured, fibre, round_trips, lowest, refused))
    return max(value, 0.0)


def _judged(scenario: Scenario, checks: list[_Check]) -> None:
    """Raise the first refusal of ``checks``; but where crossing_latency alone is more than a time the file
    measured that its fibre alone leaves possible, and no time is impossible with the fibre alone (trial
    8, P11: "40ms" typed for 40us blamed a link's 196 µs), a refusal of crossing_latency itself: it may be
    at most the least time the file measured less its fibre (per round trip), that time named."""
    errors = [check.refused for check in checks if check.refused is not None]
    if not errors:
        return
    crossing = scenario.crossing_latency
    alone = [
        check
        for check in checks
        if check.refused is not None
        and _holds(check, check.measured - check.fibre)
        and check.round_trips * crossing >= check.measured - (check.lowest or 0)
    ]
    if not alone or any(not _holds(check, check.measured - check.fibre) for check in checks):
        raise errors[0]
    crossed = [check for check in checks if check.round_trips > 0]
    least = min(crossed, key=lambda check: (check.measured - check.fibre) / check.round_trips)
    room = max((least.measured - least.fibre) / least.round_trips, 0.0)
    trips = "" if least.round_trips == 1 else f", over its {least.round_trips:g} round trips"
    raise ScenarioError(
        scenario.where,
        "crossing_latency",
        f"{_us(crossing)} per round trip, {_whose_crossing(scenario)}",
        f"{'below' if least.lowest is None else 'at most'} {_us(room)}: {least.key} = {_us(least.measured)} "
        f"measured at {_km(scenario)} less its {_us(least.fibre)} of fibre{trips}; or measured_at the "
        "distance the times were read at",
        reason=f"more than {alone[0].key} = {_us(alone[0].measured)} measured at {_km(scenario)}, which pays "
        "it on each round trip between the sites"
        + ("" if any(name == "crossing_latency" for name, _ in scenario.defaults) else ": a slip of unit?"),
    )


def _holds(check: _Check, value: float) -> bool:
    """Whether ``value`` (s), ``check``'s time at 0 km, is allowed: above 0, or at least its lowest."""
    return value > 0 or (check.lowest is not None and value >= check.lowest - 1e-15)


def _whose_crossing(scenario: Scenario) -> str:
    """Where crossing_latency comes from: the default or the file."""
    defaulted = any(name == "crossing_latency" for name, _ in scenario.defaults)
    return "the default, the GDPS study's DWDMs: the file does not set it" if defaulted else "the file's"


def _us(seconds: float) -> str:
    return f"{significant(seconds * 1e6)} µs"


def _km(scenario: Scenario) -> str:
    return f"{scenario.measured_at / 1e3:g} km"
