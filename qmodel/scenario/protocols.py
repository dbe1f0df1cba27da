"""Today's hardware and protocols in the composed solve (issue 36), one step each.

The composed solver (:mod:`qmodel.scenario.compose`) calls these where a request, a write or a read
is timed; each step calls the catalogue entry that is the home of its formula and takes the round-trip
times the solver computes from the sites' separation (one home for the propagation and the crossings).
Every step does nothing at the defaults, which are what the study's files describe
(:class:`qmodel.scenario.spec.Protocols`), so a study file answers as before.

- the coupling links' reach and zHyperLink's: a distance past them is refused, and
  the goal seek stops at the shortest (:func:`check_reach`, :func:`reach`);
- Metro Mirror's protocol: round trips per mirrored write (:func:`mirror_round_trips`);
- zHyperWrite: the log write to both volumes at once (:func:`log_write`, ``zhyperwrite_log_write``);
- lock structure duplexing: a synchronously duplexed request as its primary request plus the
  exchanges, as propagation (:func:`duplexed_distance`, ``duplexed_cf_request``), and the commit's wait
  for an asynchronous secondary (:func:`async_duplex_wait`);
- cross-invalidation of group buffer pool writes across the distance, synchronous or asynchronous
  (:func:`cross_invalidation`, ``gbp_cross_invalidation``);
- zHyperLink: synchronous reads and log writes with the CP spinning (:func:`zhyperlink`,
  ``zhyperlink_io``).

Units: SI (s, m).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from qmodel.catalogue.evaluate import calc
from qmodel.scenario.spec import (
    Member,
    Protocols,
    Scenario,
    Structure,
    duplexed_page_writes,
    invalidated_across,
)
from qmodel.studies import hardware
from qmodel.studies.hardware import LINK_TYPES, METRO_MIRROR_PROTOCOLS, ZHYPERLINK_REACH_KM

KM = 1e3
# distance (m, one array per pair of sites) -> the round-trip time across it (s), the solver's
RoundTrip = Callable[[str, str], np.ndarray]


def _si(formula_id: str, **inputs) -> dict[str, np.ndarray]:
    return calc(formula_id, units="si", **inputs).outputs


def reach(scenario: Scenario) -> float:
    """The longest distance (m) between the sites the scenario's hardware serves: the shortest reach of a
    typed link that crosses between them and of zHyperLink to a disk at the other site; inf where
    nothing crosses with a reach. (Metro Mirror's 300 km is a supported distance, not a limit: beyond it
    'IBM should be consulted', global-mirror-ds8000-2009.txt footnote 7; so it is not refused.)"""
    return reach_limit(scenario)[0]


def reach_limit(scenario: Scenario) -> tuple[float, str]:
    """:func:`reach` (m) and what sets it, in the words its refusal (:func:`check_reach`) gives: "CE-LR
    reaches <= 100 km (through a qualified DWDM; 10 km unrepeated)"; (inf, "") where nothing crosses
    between the sites with a reach."""
    limits: list[tuple[float, str]] = [(np.inf, "")]
    for path in scenario.paths:
        link = scenario.protocols.link_types.get(path.link)
        if link is not None and scenario.member(path.member).site != scenario.cf_sites[path.cf]:
            limits.append((LINK_TYPES[link].reach_km * KM, hardware.reach_words(LINK_TYPES[link])))
    for member in scenario.members:
        if _zhyperlink_sites(scenario, member) - {member.site}:
            limits.append((ZHYPERLINK_REACH_KM * KM, hardware.ZHYPERLINK_REACH_WORDS))
    return min(limits, key=lambda limit: limit[0])


def unrepeated_reach(scenario: Scenario) -> tuple[float, str] | None:
    """The shortest reach (m) without repeaters of a typed link crossing between the sites that reaches
    farther through a qualified DWDM, and its type's name; None where no such link crosses. Past it the
    route needs the DWDM, whose latency ``crossing_latency`` is (trial 9, Q5: a file of dark fibre,
    crossing_latency 0, answered at 20 to 100 km on CE-LR, 10 km unrepeated)."""
    found = [
        (LINK_TYPES[link].unrepeated_km * KM, link)
        for path in scenario.paths
        if (link := scenario.protocols.link_types.get(path.link)) is not None
        and scenario.member(path.member).site != scenario.cf_sites[path.cf]
        and LINK_TYPES[link].reach_km > LINK_TYPES[link].unrepeated_km
    ]
    return min(found) if found else None


def _zhyperlink_sites(scenario: Scenario, member: Member) -> set[str]:
    """The sites of the disks a member reaches by zHyperLink: the primary's, and for writes with Metro
    Mirror the secondary's too."""
    use = scenario.protocols.zhyperlink.get(member.name, "none")
    if use == "none":
        return set()
    sites = {scenario.primary_site}
    if use in ("writes", "all") and scenario.metro_mirror:
        sites.add(scenario.secondary_site)
    return sites


def check_reach(scenario: Scenario, distances: np.ndarray) -> None:
    """Refuse the distances past the reach of a typed coupling link or of zHyperLink, naming the file and
    key (``FILE.toml: path G1P2→CF1.link``, ``FILE.toml: member G1P2.zhyperlink``), the value and what
    is allowed."""
    if distances.size == 0:
        return
    longest = float(np.max(distances)) / KM
    for path in scenario.paths:
        link = scenario.protocols.link_types.get(path.link)
        if link is not None and scenario.member(path.member).site != scenario.cf_sites[path.cf]:
            key = f"{scenario.where}: path {path.member}→{path.cf}.link"
            hardware.check_reach(LINK_TYPES[link], longest, key)
    for member in scenario.members:
        if _zhyperlink_sites(scenario, member) - {member.site}:
            hardware.check_zhyperlink_reach(longest, f"{scenario.where}: member {member.name}.zhyperlink")


def mirror_round_trips(protocols: Protocols) -> int:
    """Round trips primary → secondary per Metro Mirror write, by the file's protocol."""
    return METRO_MIRROR_PROTOCOLS[protocols.mirror_protocol].round_trips


def log_write(
    scenario: Scenario, local: np.ndarray, round_trip: RoundTrip, site: str
) -> tuple[np.ndarray, np.ndarray]:
    """(time, propagation) of a log write with zHyperWrite from a member at ``site``: the later of its
    writes to the primary and to the secondary (``zhyperwrite_log_write``), ``local`` its service at
    0 km without Metro Mirror (s). Its propagation is the longer round trip."""
    written = _si(
        "zhyperwrite_log_write",
        write_service=local,
        base_overhead=scenario.pprc_overhead,
        primary_round_trip=round_trip(site, scenario.primary_site),
        secondary_round_trip=round_trip(site, scenario.secondary_site),
        mirror_round_trip=round_trip(scenario.primary_site, scenario.secondary_site),
        io_round_trips=1,
        mirror_round_trips=mirror_round_trips(scenario.protocols),
    )
    return written["hyperwrite_write"], written["hyperwrite_write"] - local


def duplexed_secondary(scenario: Scenario, primary: str) -> Structure | None:
    """The secondary z/OS duplexes a lock or list structure ``primary`` into, if duplexing is on."""
    return next(
        (
            s
            for s in scenario.structures.values()
            if s.primary == primary and s.name in scenario.protocols.duplexing
        ),
        None,
    )


def duplexed_distance(
    scenario: Scenario,
    member: Member,
    structure: Structure,
    secondary: Structure,
    service: float,
    round_trip: RoundTrip,
) -> np.ndarray:
    """The fibre (m) whose round trips take as long as what synchronous duplexing adds to a request of
    ``member`` to ``structure`` over its simplex service at 0 km (``service``, s): both z/OS-to-CF round
    trips and the CFs' ready-to-execute and ready-to-complete exchanges (``duplexed_cf_request``). Fed to
    ``cf_request_at_distance`` as its distance, it times the request as propagation, which is what it is:
    deterministic, converted to async by the same estimate."""
    primary_cf, secondary_cf = scenario.cf_sites[structure.cf], scenario.cf_sites[secondary.cf]
    request = _si(
        "duplexed_cf_request",
        service=service,
        primary_round_trip=round_trip(member.site, primary_cf),
        secondary_round_trip=round_trip(member.site, secondary_cf),
        cf_round_trip=round_trip(primary_cf, secondary_cf),
        signal_service=scenario.protocols.signal_service.get(secondary.cf, 0.0),
    )
    added = request["sync_request"] - service
    trips = 1  # cf_request_at_distance's cf_round_trips (its default, as the solver calls it)
    return added * scenario.fibre_speed / (2 * trips)


def async_duplex_wait(
    scenario: Scenario, structure: Structure, secondary: Structure, round_trip: RoundTrip
) -> np.ndarray:
    """At most, the commit's wait for an asynchronous secondary to confirm the transaction's last update:
    one CF-to-CF exchange (``duplexed_cf_request.async_commit_wait``), s."""
    primary_cf, secondary_cf = scenario.cf_sites[structure.cf], scenario.cf_sites[secondary.cf]
    cf_round_trip = round_trip(primary_cf, secondary_cf)
    return _si(
        "duplexed_cf_request",
        service=1.0,
        primary_round_trip=0.0,
        secondary_round_trip=0.0,
        cf_round_trip=cf_round_trip,
        signal_service=scenario.protocols.signal_service.get(secondary.cf, 0.0),
    )["async_commit_wait"]


def page_writes(scenario: Scenario, member: Member, primary: str) -> float:
    """A member's page writes per transaction to the group buffer pool ``primary``: as given
    (``gbp_writes``), else its requests to the pool's secondary (the pages duplexed), else 0."""
    given = scenario.protocols.gbp_writes.get(member.name)
    return duplexed_page_writes(member, scenario.structures, primary) if given is None else given


def cross_invalidation(
    scenario: Scenario, member: Member, primary: Structure, page_service: np.ndarray, round_trip: RoundTrip
) -> np.ndarray:
    """What cross-invalidating a member across the distance adds to a transaction's commit, s: with
    synchronous XI each page write waits for its signal's round trip; with asynchronous XI the commit's
    synch-up waits at most once (``gbp_cross_invalidation``). Zero where no other member sits at another
    site than the pool's CF, or no share of the writes invalidates one (``xi_share``, default 0)."""
    share = scenario.protocols.xi_share.get(member.name, 0.0)
    writes = page_writes(scenario, member, primary.name) * member.tpno_share
    cf_site = scenario.cf_sites[primary.cf]
    across = invalidated_across(scenario.members, member, cf_site)
    if not share or writes <= 0 or not across:
        return np.zeros_like(np.asarray(page_service, float))
    xi = _si(
        "gbp_cross_invalidation",
        page_write_service=page_service,
        xi_share=share,
        xi_round_trip=round_trip(cf_site, across[0]),
        writes=writes,
    )
    return xi["commit_synch_up" if primary.name in scenario.protocols.async_xi else "sync_xi_per_commit"]


def zhyperlink(
    scenario: Scenario, member: Member, reading: bool, zhpf_time: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """(time per I/O, CP spin per I/O) of the member's reads (``reading``) or log writes over zHyperLink
    (``zhyperlink_io``), ``zhpf_time`` the I/O's time without it (s); None where the member sends none of
    them over zHyperLink. A read is synchronous when it is found in the cache (``read_hit``), a log write
    always."""
    protocols = scenario.protocols
    use = protocols.zhyperlink.get(member.name, "none")
    if use not in (("reads", "all") if reading else ("writes", "all")):
        return None
    service = protocols.zhyperlink_read if reading else protocols.zhyperlink_write
    io = _si(
        "zhyperlink_io",
        eligible=protocols.read_hit if reading else 1.0,
        sync_service=service,
        miss_time=protocols.zhyperlink_miss,
        zhpf_io=np.maximum(zhpf_time, 1e-12),
    )
    return io["io_time"], io["cpu_spin"]


def described(scenario: Scenario) -> list[str]:
    """Today's hardware and protocols the answer rests on, in sentences, with the defaults assumed
    where no figure was given (:attr:`Protocols.assumed`); none for a file at the study's defaults."""
    protocols, said = scenario.protocols, []
    if protocols.link_types:
        links = ", ".join(f"{name} {kind}" for name, kind in sorted(protocols.link_types.items()))
        at = f"{scenario.measured_at / KM:g} km" if scenario.measured_at else "0 km"
        said.append(f"Links: {links} (their service at {at} as measured).")
    if protocols.mirror_protocol != "pre-deposit":
        said.append(
            f"Metro Mirror: {protocols.mirror_protocol}, {mirror_round_trips(protocols)} round trips "
            "per write."
        )
    if protocols.zhyperwrite:
        said.append(
            "zHyperWrite: each log write to the primary and the secondary at once (two SSCHs, none "
            "over the Metro Mirror links)."
        )
    for secondary, mode in sorted(protocols.duplexing.items()):
        primary = scenario.structures[secondary].primary
        how = (
            "synchronously."
            if mode == "sync"
            else "asynchronously (the commit waits at most one CF-to-CF exchange)."
        )
        said.append(f"{primary} duplexed into {secondary}, {how}")
    if protocols.async_xi:
        said.append("Asynchronous cross-invalidation: " + ", ".join(sorted(protocols.async_xi)) + ".")
    for member, use in sorted(protocols.zhyperlink.items()):
        said.append(
            f"zHyperLink: {member}'s {'reads and log writes' if use == 'all' else use}, the CP "
            "spinning for each (in its CPU)."
        )
    if protocols.assumed:
        said.append("Assumed: " + "; ".join(protocols.assumed) + ".")
    limit = reach(scenario)
    if np.isfinite(limit):
        said.append(f"The links reach {limit / KM:g} km: a distance beyond is refused.")
    return said
