"""Every key a scenario file accepts, in one table: name, type, unit, default, bounds, meaning, source.

:mod:`qmodel.scenario.spec` reads each value with the unit, default and bound this table gives it
(:func:`key_of`) and takes its accepted-key sets from here (:func:`keys_of`); the documentation's
scenario-file reference is rendered from :data:`SCENARIO_KEYS`. So a key is described once. ``table``
is the TOML table the key sits in: ``""`` for the top level, ``member`` for each ``[[member]]``,
``link`` for each ``[link.NAME]``, ``disk.io`` for ``[disk] read`` and ``write``.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from qmodel.units import UNITS


class Note(str):
    """A default that is not a value the file could write: "required", or what holds instead
    ("none (IOSQ as given)", "required with castout_owner"); the reader decides it."""


REQUIRED = Note("required")
# the dimensions whose values need their unit written in a file (a bare 70 could be km or miles)
WRITTEN = ("time", "length", "speed")


# The largest readings a planner's RMF report has, where more is a slip of unit (88ms for 88us, 0.12s for
# 0.12ms) that would answer with the model moving the wrong way (trial 4, D11: a remote sync service of
# 88 ms lengthened the distance the goal holds to). Each says why in the refusal; its sources:
# - a synchronous CF request: the farthest any coupling link reaches is 100 km through a qualified DWDM
#   (IBM z14 ZR1 Configuration Setup, SG24-8651, 9.1.1; the z10 data sheet: 100 km repeated), a round trip
#   of 1 ms at 10 us/km (the GDPS study) and 138 us through its DWDMs (crossing_latency's default), on a
#   service of microseconds at 0 km (the GDPS study's RMF: 18.7 us sync on IC links);
# - a part of a disk I/O: IBM OMEGAMON for Db2 Performance Expert, 'Class 3 suspensions': a synchronous
#   I/O typically takes 20 to 30 ms (the disks of that time), longer is a problem;
# - the PPRC overhead: the GDPS study, about 0.4 ms per write at 0 km; Metro Mirror reaches 300 km (IBM
#   DS8000 10th generation, 'Metro Mirror'), 3 ms of round trips there.
CF_SYNC_CEILING = (
    "a sync service is microseconds at 0 km and 1.14 ms of round trip at the farthest a coupling link "
    "reaches (100 km through a DWDM)"
)
DISK_CEILING = "a synchronous I/O takes 20 to 30 ms at most on a working disk (IBM OMEGAMON for Db2 PE)"
PPRC_CEILING = (
    "about 0.4 ms a write at 0 km (the GDPS study), 3 ms of round trips more at Metro Mirror's 300 km"
)


class ScenarioKey(NamedTuple):
    """One key of a scenario file.

    ``unit``: the unit a value is read in (``ms``: a time read as ``"8.8ms"``; ``1`` a bare count,
    ``ratio`` a share written ``90%`` or ``0.9``), "" where the value is no quantity. ``default``: the
    value taken when the key is left out, as a file would write it (``"0ms"``, ``7``, ``False``), or a
    :class:`Note` (:data:`REQUIRED`, or a condition). ``positive``: the value must be above 0 (else at
    least 0). ``supported``: where the default is an estimate, the range the studies support for it
    (its 95% interval, as a file would write the ends): a file that leaves the key out gets a band
    across it (:func:`qmodel.scenario.band.estimated_defaults`). ``plausible``: where a reading above
    some value is a slip of unit (88ms for 88us), that value as written and its source: the reader
    refuses more (:func:`qmodel.scenario.spec.plausible_ceiling`)."""

    table: str
    name: str
    type: str
    unit: str
    default: object
    meaning: str
    source: str = ""  # where a planner gets the number; "" for a name or a table
    positive: bool = False
    supported: tuple[str, str] | None = None  # the range the studies support for the default, as written
    plausible: tuple[str, str] | None = None  # (the largest value a planner's reading has, as written; why)

    @property
    def written(self) -> bool:
        """Whether a file must write the value's unit (a time, distance or speed)."""
        return self.unit in UNITS and UNITS[self.unit].dimension in WRITTEN

    @property
    def shown_unit(self) -> str:
        """The unit as the reference shows it: ``ms (written)`` where the file writes it."""
        return f"{self.unit} (written)" if self.written else self.unit

    @property
    def shown_default(self) -> str:
        """The default as the reference shows it: a value as TOML writes it, or the note's words."""
        if isinstance(self.default, Note):
            return str(self.default)
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        shown = json.dumps(self.default, ensure_ascii=False)
        if self.supported is None:
            return shown
        low, high = self.supported
        return f"{shown}; left out, the band takes it as normal with its 95% interval, {low} to {high}"

    @property
    def shown_meaning(self) -> str:
        """The meaning as the reference shows it, with the largest reading the reader takes, and why."""
        if self.plausible is None:
            return self.meaning
        ceiling, why = self.plausible
        return f"{self.meaning}; at most {ceiling}, more is refused as a slip of unit ({why})"

    @property
    def file_default(self) -> object:
        """The default the reader takes (None: the key is required, or the reader decides)."""
        return None if isinstance(self.default, Note) else self.default


SCENARIO_KEYS: tuple[ScenarioKey, ...] = (
    ScenarioKey(
        "",
        "format_version",
        "whole number",
        "1",
        1,
        "the file's format: 1, the one this qmodel reads (checked before the rest: "
        "qmodel.tomlread.format_checked)",
    ),
    ScenarioKey("", "title", "text", "", Note("the file name"), "the scenario's name, shown over its tables"),
    ScenarioKey("", "source", "text", "", "", "where the numbers come from (a study, a table)"),
    ScenarioKey(
        "",
        "sites",
        "list of text",
        "",
        REQUIRED,
        "one or two distinct site names; the distance is between the two",
    ),
    ScenarioKey(
        "",
        "distance",
        "distance, list or range",
        "km",
        "0km",
        "between the sites: 70km, an ascending list 20,40,70km or a range 0..100km",
        source="the planned route between the sites (fibre length, not the straight line)",
    ),
    ScenarioKey(
        "",
        "fibre_speed",
        "speed",
        "km/s",
        "200000km/s",
        "speed of light in the fibre (10 µs/km per round trip at 200,000 km/s)",
        source="the GDPS study: about 200,000 km/s, 10 µs/km per round trip; or a measured round "
        "trip (RMF CF activity report, path data: channel path latency, SMF 74.4 R744HLAT) less "
        "crossing_latency, over the distance",
        positive=True,
    ),
    ScenarioKey(
        "",
        "crossing_latency",
        "time",
        "us",
        "138us",
        "fixed time each round trip between the two sites adds beyond the fibre's per-km time: the "
        "equipment on the route (DWDM transponders, channel extenders, amplifiers), paid at every "
        "distance above 0 km (a run at 0 km has the sites side by side, no such equipment)",
        source="a measured round trip (RMF CF activity report, path data: channel path latency, SMF "
        "74.4 R744HLAT) less 2 × distance / fibre_speed; the default is the GDPS study's: its RMF "
        "service times across the distance, fitted with a fixed step from 0 to 20 km beside the "
        "per-km term (9.79 µs/km), give 138 µs per round trip through its DWDMs (95% interval 55 to "
        "221; tests/scenario/test_crossing_latency.py); public figures put electrical regeneration "
        "with FEC near 100 µs per site (Huawei, WDM/OTN network latency composition)",
        supported=("55us", "221us"),
    ),
    ScenarioKey(
        "",
        "measured_at",
        "distance",
        "km",
        "0km",
        "the distance between the sites when the file's RMF times were read: the links' sync and async "
        "service, the [disk] read and write times and pprc_overhead, the CFs' signal_service. The "
        "model takes off what it adds at that distance (the round trips, crossing_latency included) "
        "and adds its own at each distance asked; [locks] measured_at takes this value unless it "
        "gives its own. 0km (the sites side by side) or at least 100 m: less is refused as m typed for km",
        source="the configuration of the measured interval (today's distance between the sites); the "
        "[disk] times as the members at the primary disks' site see them (where none runs there, the "
        "members' own); a link type used both within a site and between the sites is given twice "
        "(a [link.NAME] each)",
    ),
    ScenarioKey(
        "",
        "goal",
        "table",
        "",
        REQUIRED,
        "the WLM goal: [goal], one for every member (the service class the file's transactions run in: "
        "members whose service classes' goals differ are asked about in a file each)",
    ),
    ScenarioKey("", "member", "array of tables", "", REQUIRED, "the z/OS images: [[member]]"),
    ScenarioKey("", "cf", "array of tables", "", REQUIRED, "the coupling facilities: [[cf]]"),
    ScenarioKey("", "path", "array of tables", "", REQUIRED, "each member's connection to a CF: [[path]]"),
    ScenarioKey("", "link", "tables", "", REQUIRED, "CF link types by name: [link.NAME]"),
    ScenarioKey("", "disk", "table", "", REQUIRED, "the disks and Metro Mirror: [disk]"),
    ScenarioKey("", "conversion", "table", "", {}, "CF sync → async conversion: [conversion]"),
    ScenarioKey("", "locks", "table", "", REQUIRED, "lock contention (Tay's model): [locks]"),
    ScenarioKey("", "distribution", "table", "", {}, "the response time's spread"),
    ScenarioKey(
        "",
        "band",
        "table",
        "",
        Note("the range the studies support for the lock parameters"),
        "[band]: method (text: what the band is made of), points (tables of dotted keys, the same "
        "spellings as --variants headers: the fitted parameters' sigma points), weights (one per "
        "point) and measured_at (the distance the members were measured and fitted at: what is "
        "measured there carries no error of the growth, only the run-to-run spread); every answer "
        "carries the band at its level "
        "(docs/background/cross-validation.md)",
        source="written by qmodel scenario calibrate FILE MEASUREMENTS (into FILE.fit.toml): the sigma "
        "points of the fit's joint normal, with their weights",
    ),
    ScenarioKey(
        "",
        "free",
        "list of text",
        "",
        [],
        "the parameters qmodel scenario calibrate fits on measured rows, as dotted keys: "
        "locks.lockable_items, locks.lock_span, member.*.other (each member its own), "
        "member.G1P1.think_time, crossing_latency, ...; their values in the file are where the fit "
        "starts",
        source="declared: what the measurements should pin (the calibrate command flags what they do not)",
    ),
    ScenarioKey(
        "",
        "calibration",
        "array of tables",
        "",
        [],
        "what was fitted, on which rows (free text, shown, never read as numbers)",
    ),
    ScenarioKey(
        "goal",
        "response_time",
        "time",
        "ms",
        REQUIRED,
        "the goal's time, e.g. 125ms",
        source="the WLM service class's percentile goal",
        positive=True,
    ),
    ScenarioKey(
        "goal",
        "share",
        "share",
        "ratio",
        REQUIRED,
        "the share of transactions to finish within it, e.g. 90%",
        source="the WLM service class's percentile goal",
        positive=True,
    ),
    ScenarioKey("member", "name", "text", "", REQUIRED, "the member's name, different for each"),
    ScenarioKey("member", "site", "text", "", REQUIRED, "its site, one of sites"),
    ScenarioKey(
        "member",
        "logical_cps",
        "whole number",
        "1",
        REQUIRED,
        "logical CPs of its LPAR",
        source="RMF CPU activity report: the LPAR's logical processors",
        positive=True,
    ),
    ScenarioKey(
        "member",
        "arrival_rate",
        "rate",
        "1/s",
        Note("none: terminals and think_time"),
        "transactions per second the member receives (an open workload), in place of terminals and "
        "think_time: the same answer as many terminals with a long think time at that throughput",
        source="RMF workload activity report: the service class's ended transactions per second "
        "(END/S), or CICS/DB2 statistics: transactions over the interval",
        positive=True,
    ),
    ScenarioKey(
        "member",
        "terminals",
        "whole number",
        "1",
        Note("required without arrival_rate"),
        "terminals driving it (a closed population, TPNS)",
        source="the workload driver (TPNS), or Little's law: throughput × (response + think time)",
        positive=True,
    ),
    ScenarioKey(
        "member",
        "think_time",
        "time",
        "s",
        Note("required with terminals"),
        "think time between transactions",
        source="the workload driver, or terminals / throughput − response time",
        positive=True,
    ),
    ScenarioKey(
        "member",
        "cpu",
        "time",
        "ms",
        REQUIRED,
        "CPU per transaction besides CF spin",
        source="RMF workload activity: the region's CPU seconds / transactions",
    ),
    ScenarioKey(
        "member",
        "other",
        "time",
        "ms",
        REQUIRED,
        'response time no step of the model explains ("0ms" for none)',
        source="fitted at 0 km: measured response time less the modelled parts",
    ),
    ScenarioKey(
        "member",
        "sync_reads",
        "count",
        "1",
        REQUIRED,
        "sync reads per transaction (0: none)",
        source="RMF device activity counts / transactions (qmodel scenario-profile)",
    ),
    ScenarioKey(
        "member",
        "log_writes",
        "count",
        "1",
        REQUIRED,
        "synchronous log writes per transaction (0 for none)",
        source="RMF device activity counts / transactions (qmodel scenario-profile)",
    ),
    ScenarioKey(
        "member",
        "requests",
        "table of counts",
        "1",
        REQUIRED,
        "CF requests per transaction by structure, e.g. { LOCK1 = 54.4 } ({} for none)",
        source="RMF CF activity counts / transactions (qmodel scenario-profile)",
    ),
    ScenarioKey(
        "member",
        "tpno_share",
        "share",
        "ratio",
        REQUIRED,
        'share of the CF requests the transaction waits for ("100%" for all)',
        source="measured, or 100% where the transaction waits for every request",
    ),
    ScenarioKey("cf", "name", "text", "", REQUIRED, "the CF's name, different for each"),
    ScenarioKey("cf", "site", "text", "", REQUIRED, "its site, one of sites"),
    ScenarioKey(
        "cf",
        "structures",
        "table of text",
        "",
        REQUIRED,
        'its structures and their kinds: lock, cache, list or "secondary of PRIMARY"',
    ),
    ScenarioKey("path", "member", "text", "", REQUIRED, "the member, one of the [[member]] names"),
    ScenarioKey("path", "cf", "text", "", REQUIRED, "the CF, one of the [[cf]] names"),
    ScenarioKey("path", "link", "text", "", REQUIRED, "its link type, a [link.NAME]"),
    ScenarioKey(
        "path",
        "subchannels",
        "whole number",
        "1",
        7,
        "subchannels on the path (left out: its link type's per CHPID where [link] gives a type)",
        source="RMF CF activity report: subchannels of the member's path",
        positive=True,
    ),
    ScenarioKey(
        "path",
        "background_rate",
        "rate",
        "1/s",
        0,
        "requests per second not driven by the transactions (castout)",
        source="RMF CF activity report: the member's requests/s less its transactions'",
    ),
    ScenarioKey(
        "link",
        "sync",
        "table of times",
        "us",
        {},
        "service of a synchronous request at measured_at (0 km by default), by structure kind",
        source="RMF CF activity report: sync service time per request",
        positive=True,
        plausible=("2ms", CF_SYNC_CEILING),
    ),
    ScenarioKey(
        "link",
        "async",
        "table of times",
        "us",
        {},
        "service of an asynchronous request at measured_at (0 km by default), by structure kind",
        source="RMF CF activity report: async service time per request",
        positive=True,
    ),
    ScenarioKey(
        "link",
        "converted",
        "table of shares",
        "ratio",
        {},
        "share already async at 0 km, by structure kind (0 where not given); on a link between the sites "
        "only with measured_at 0km (at a distance the model estimates it from conversion.threshold)",
        source="RMF CF activity report: async share at 0 km (qmodel scenario-profile)",
    ),
    ScenarioKey("disk", "primary_site", "text", "", REQUIRED, "the site of the primary disks"),
    ScenarioKey(
        "disk",
        "secondary_site",
        "text",
        "",
        Note("primary_site"),
        "the site of the Metro Mirror secondaries (read only with metro_mirror)",
    ),
    ScenarioKey(
        "disk",
        "metro_mirror",
        "true or false",
        "",
        False,
        "synchronous writes are mirrored to the secondary site",
    ),
    ScenarioKey(
        "disk",
        "pprc_overhead",
        "time",
        "ms",
        "0ms",
        "Metro Mirror cost per write at measured_at (0 km by default): what it adds to a write's DISC",
        source="the GDPS study: about 0.4 ms per write at 0 km; or measured",
        plausible=("10ms", PPRC_CEILING),
    ),
    ScenarioKey("disk", "read", "table", "", REQUIRED, "a sync read's RMF times: [disk.io]"),
    ScenarioKey("disk", "write", "table", "", REQUIRED, "a sync write's RMF times: [disk.io]"),
    ScenarioKey(
        "disk",
        "volumes",
        "whole number",
        "1",
        Note("none (IOSQ as given)"),
        "volumes the I/O spreads over; given, IOSQ is computed from the load (pav_iosq)",
        source="RMF device activity report: the volumes of the workload",
        positive=True,
    ),
    ScenarioKey(
        "disk",
        "aliases",
        "whole number",
        "1",
        0,
        "PAV aliases per volume (with volumes)",
        source="the PAV configuration (RMF device activity: exposures)",
    ),
    ScenarioKey(
        "disk",
        "background_rate",
        "rate",
        "1/s",
        0,
        "SSCH/s of other work on the volumes, served like writes (with volumes)",
        source="RMF device activity report: SSCH/s of other work on the volumes",
    ),
    ScenarioKey(
        "disk",
        "castout_owner",
        "text",
        "",
        Note("none (no castout IOSQ)"),
        "the member whose synchronous reads queue behind its castout (DBM1) writes",
        source="the study's tables: the castout owner is printed in bold",
    ),
    ScenarioKey(
        "disk",
        "castout_write",
        "table",
        "",
        Note("required with castout_owner"),
        "the owner's castout (DBM1) write at measured_at (as its owner sees it): [disk.io]",
        source="RMF device activity report of the DBM1 address space",
    ),
    ScenarioKey(
        "disk",
        "castout_iosq",
        "ratio",
        "1",
        Note("required with castout_owner"),
        "IOSQ on the owner's reads per unit of its castout write response",
        source="fitted on runs with nothing at a distance (calibration)",
    ),
    ScenarioKey(
        "disk.io",
        "conn",
        "time",
        "ms",
        "0ms",
        "connect time per I/O",
        source="RMF device activity report: CONN per I/O",
        plausible=("100ms", DISK_CEILING),
    ),
    ScenarioKey(
        "disk.io",
        "disc",
        "time",
        "ms",
        "0ms",
        "disconnect time per I/O",
        source="RMF device activity report: DISC per I/O",
        plausible=("100ms", DISK_CEILING),
    ),
    ScenarioKey(
        "disk.io",
        "pend",
        "time",
        "ms",
        "0ms",
        "pending time per I/O at measured_at (0 km by default)",
        source="RMF device activity report: PEND per I/O",
        plausible=("100ms", DISK_CEILING),
    ),
    ScenarioKey(
        "disk.io",
        "iosq",
        "time",
        "ms",
        "0ms",
        "IOS queue time per I/O (0ms or left out with volumes: computed)",
        source="RMF device activity report: IOSQ per I/O",
    ),
    ScenarioKey(
        "conversion",
        "threshold",
        "time",
        "us",
        "150us",
        "sync service above which z/OS converts a CF request to async (an estimate)",
        source="z/OS does not publish its heuristic; the default is the value the cross-validation "
        "across the GDPS study's three environments chose (docs/background/cross-validation.md: every "
        "value between the largest 0 km sync service, 46 µs, and the smallest 0 km async one, 151 µs, "
        "converts the same requests at 0 km), said with the answer",
        positive=True,
    ),
    ScenarioKey(
        "conversion",
        "redispatch",
        "time",
        "us",
        "0us",
        "wait to redispatch the transaction after a converted request",
        source="an estimate, or fitted on measurements at a distance",
    ),
    ScenarioKey(  # charged as compose.fixed_parts does (trial 9, Q14)
        "conversion",
        "async_cpu",
        "time",
        "us",
        "0us",
        "CPU per asynchronous request a transaction waits for, charged to its member: each converted "
        "request among the tpno_share of its requests, and each group buffer pool secondary write "
        "(always asynchronous) among the tpno_share of those; requests not waited for are charged nowhere",
        source="an estimate",
    ),
    ScenarioKey(
        "locks",
        "lockable_items",
        "count or inf",
        "1",
        Note("required without measured_wait"),
        "the lock model's hot set; inf for no lock contention; left out, it is inferred from "
        "measured_wait at measured_at",
        source="fitted on measurements at two or more distances (calibration), or inferred from the "
        "lock contention measured at today's distance (measured_wait)",
        positive=True,
    ),
    ScenarioKey(
        "locks",
        "measured_wait",
        "time",
        "ms",
        Note("none"),
        "lock contention per transaction as measured at measured_at (the members together, "
        "throughput-weighted): lockable_items is inferred from it, with its interval",
        source="DB2 accounting class 3 per commit: LOCK/LATCH suspension plus GLOBAL CONTENTION "
        "(IRLM, XES) suspension, the transactions' plan; or the RMF CF activity report's lock "
        "structure contention with the IRLM suspension time it causes",
        positive=True,
    ),
    ScenarioKey(
        "locks",
        "measured_at",
        "distance",
        "km",
        Note("measured_at (the top level's)"),
        "the distance between the sites when measured_wait was measured",
        source="the configuration of the measured interval (today's distance)",
    ),
    ScenarioKey(
        "locks",
        "resolution_round_trips",
        "count",
        "1",
        Note("required (0 with inf)"),
        "XCF round trips that resolve a global lock contention",
        source="an assumption (2: request and response over XCF)",
    ),
    ScenarioKey(
        "locks",
        "lock_span",
        "share",
        "ratio",
        "50%",
        "the last share of the execution over which locks are taken (100% with lockable_items inf)",
        source="fitted on measurements at two or more distances (qmodel scenario calibrate --free "
        "locks.lock_span); the default is the value the cross-validation across the GDPS study's "
        "three environments chose (docs/background/cross-validation.md), said with the answer",
    ),
    ScenarioKey(
        "distribution",
        "shape",
        "number > 0",
        "1",
        1,
        "gamma shape of the response time's variable part (1: exponential; whole: Erlang-k)",
        source="fitted on a member's measured share within the goal (qmodel scenario calibrate, "
        "member.NAME.shape free, a share_within_goal row: RMF workload activity's response time "
        "distribution); the default 1 (exponential) is an assumption, and the range the studies "
        "support for it, 0.255 to 1.745, is the least interval about 1 that holds every shape the GDPS "
        "study's members were fitted to (Environments 1 and 2: 0.7994, 0.8534, 0.8535, 1.745; the "
        "criterion set before its effect on any answer was seen)",
        positive=True,
        supported=("0.255", "1.745"),
    ),
    ScenarioKey(
        "member",
        "shape",
        "number > 0",
        "1",
        Note("[distribution] shape"),
        "gamma shape of the member's response time less its propagation (all of it at 0 km)",
        source="fitted on the member's share within the goal at 0 km (qmodel scenario calibrate, "
        "member.NAME.shape free, a share_within_goal row)",
        positive=True,
    ),
)

# ---- today's hardware and protocols (issue 36): each defaults to what the study's files describe ----
# Their facts and sources: qmodel.studies.hardware; the docs page background/modern.md says which
# default is 2006's and which is today's.
TODAY_KEYS: tuple[ScenarioKey, ...] = (
    ScenarioKey(
        "link",
        "type",
        "text",
        "",
        Note("none (the link the service was measured on: reach not checked, 7 subchannels)"),
        "coupling link type: IC, ISC-3, ISC-3-sender, IFB-12x, IFB-1x, ICA-SR, ICA-SR1.1, CE-LR or "
        "CE3-LR; a path past its reach is refused, and its subchannels per CHPID are the path's "
        "default",
        source="the I/O configuration (IOCP CHPID type ICP, CFP, CFS, CIB, CS5, CL5, CL6); reach and "
        "subchannels: IBM IOCP message ICP354I, z14 ZR1 Configuration Setup, z10 data sheet",
    ),
    ScenarioKey(
        "disk",
        "mirror_protocol",
        "text",
        "",
        "pre-deposit",
        "Metro Mirror write protocol: pre-deposit (one round trip per write: the study's DS8000 "
        "and today's) or fcp (two: command and transfer ready, then data and status)",
        source="the study's measured slope (one round trip per write); Cisco MDS 9000 I/O "
        "Accelerator guide (a SCSI write over FC: two round trips)",
    ),
    ScenarioKey(
        "disk",
        "zhyperwrite",
        "true or false",
        "",
        False,
        "log writes go to primary and secondary at once, not mirrored by the DS8000 (with "
        "metro_mirror): two SSCHs per log write, none over the Metro Mirror links",
        source="Db2 subsystem parameter REMOTE_COPY_SW_ACCEL = ENABLE; z/OS IECIOSxx HYPERWRITE; "
        "HyperSwap (GDPS or TPC-R) managing the pairs",
    ),
    ScenarioKey(
        "disk",
        "zhyperlink_read",
        "time",
        "us",
        Note("required with zHyperLink reads"),
        "service of one synchronous zHyperLink read (the CP spins for it)",
        source="RMF 74-1 synchronous I/O: processing time per successful read (IBM's published "
        "expectation: 20 us or less)",
        positive=True,
    ),
    ScenarioKey(
        "disk",
        "zhyperlink_write",
        "time",
        "us",
        Note("required with zHyperLink writes"),
        "service of one synchronous zHyperLink log write, its Metro Mirror included (the CP spins)",
        source="RMF 74-1 synchronous I/O: processing time per successful write",
        positive=True,
    ),
    ScenarioKey(
        "disk",
        "zhyperlink_miss",
        "time",
        "us",
        "0us",
        "CP spin of a zHyperLink read attempt that misses the cache, before it goes by zHPF",
        source="RMF 74-1 synchronous I/O: elapsed time per unsuccessful request; 0 when not given "
        "(a lower bound), said with the answer",
    ),
    ScenarioKey(
        "disk",
        "read_hit",
        "share",
        "ratio",
        Note("required with zHyperLink reads"),
        "share of the synchronous reads found in the DS8000 cache (the ones zHyperLink serves)",
        source="RMF cache activity report: read hit %",
    ),
    ScenarioKey(
        "member",
        "zhyperlink",
        "text",
        "",
        "none",
        "the member's synchronous I/O over zHyperLink: none, reads, writes (log writes) or all; "
        "the disks within 150 m of it (with Metro Mirror, for writes, both DS8000s)",
        source="Db2 subsystem parameter ZHYPERLINK (DISABLE, DATABASE, ACTIVELOG, ENABLE)",
    ),
    ScenarioKey(
        "member",
        "gbp_writes",
        "count",
        "1",
        Note("its requests to a group buffer pool's secondary (the pages duplexed), else 0"),
        "group buffer pool page writes per transaction (what cross-invalidation is paid on)",
        source="Db2 statistics: pages written to the group buffer pools / commits",
    ),
    ScenarioKey(
        "member",
        "xi_share",
        "share",
        "ratio",
        "0%",
        "share of its group buffer pool page writes that invalidate a copy at a member across the distance",
        source="Db2 statistics: cross-invalidations / pages written; 0 when not given (the studies "
        "print none), said with the answer",
    ),
    ScenarioKey(
        "cf",
        "duplexing",
        "table of text",
        "",
        Note("sync for a lock or list secondary"),
        'the duplexing of each structure\'s secondary on this CF, e.g. { LOCK1S = "async" }: sync '
        "(system-managed, 2006's) or async (the Db2 lock structure only, today's); a group buffer "
        "pool's secondary is Db2's own duplexing and takes none",
        source="the CFRM policy: DUPLEX(ENABLED) or DUPLEX(ENABLED,ASYNC)",
    ),
    ScenarioKey(
        "cf",
        "signal_service",
        "time",
        "us",
        "0us",
        "service of one CF-to-CF signal at measured_at (0 km by default), for the structures duplexed "
        "on this CF",
        source="RMF 74-4 remote facility section: signal service time; 0 when not given (a lower "
        "bound of the duplexing cost), said with the answer",
    ),
    ScenarioKey(
        "cf",
        "cross_invalidation",
        "table of text",
        "",
        Note("sync for every cache structure"),
        "sync (the study's) or async cross-invalidation, by group buffer pool on this CF, e.g. "
        '{ GBPP = "async" }',
        source="Db2 DISPLAY GROUPBUFFERPOOL MDETAIL: DSNB818I, writes with asynchronous XI",
    ),
)
SCENARIO_KEYS = SCENARIO_KEYS + TODAY_KEYS

_BY_NAME = {(key.table, key.name): key for key in SCENARIO_KEYS}


def keys_of(table: str) -> set[str]:
    """The keys the scenario file accepts in ``table`` (``""``: the top level)."""
    return {key.name for key in SCENARIO_KEYS if key.table == table}


def key_of(table: str, name: str) -> ScenarioKey:
    """The schema's row for key ``name`` of ``table`` (``""``: the top level)."""
    return _BY_NAME[(table, name)]
