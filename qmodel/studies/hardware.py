"""Hardware and protocol facts of a sysplex, 2006's and today's, each with its public source.

One home for each fact the scenario solver, ``qmodel subchannels`` and the docs read: the coupling link
types (the CHPID type, the longest link without and with a qualified DWDM, the subchannels HCD defines per
CHPID), the zHyperLink distance limit, the Metro Mirror write protocols (round trips per write) and the
duplexing modes a CF structure can have. Where no public figure was found the fact says so
(:data:`NO_PUBLIC_FIGURE`) and the value is left to the planner (a required key), never guessed.

Distances in km; a link that cannot leave its CPC (IC) has a reach of 0 km. Sources are quoted in
``source`` as their title and address; docs/background/modern.md lists them in one table.
"""

from __future__ import annotations

from typing import NamedTuple

from qmodel.errors import InputError

NO_PUBLIC_FIGURE = "no public figure found"

# The sources, one name each, quoted by the facts below.
IOCP_COUPLING = (
    "IBM IOCP User's Guide, message ICP354I (ibm.com/docs/en/systems-hardware/linuxone/"
    "9176-MLR?topic=prefix-icp354i): CFP, CBP and ICP paths a minimum of seven devices (ICP "
    "eight on some CPCs), CIB seven (32 on some adapters), CL5 and CL6 a minimum of eight with "
    "32 recommended, CS5 a minimum of eight, CFS and CBS two"
)
HCD_IFB = (
    "z/OS HCD: 'Making subsequent channel path connections for a coupling facility' (ibm.com/support/"
    "knowledgecenter/SSLTBW_2.2.0/com.ibm.zos.v2r2.ieag800/iea3g889.htm): seven devices per CF peer "
    "path, seven or thirty-two per InfiniBand (IFB) path"
)
Z10_LINKS = (
    "IBM System z10 EC/BC data sheet, 'z10 Coupling Link Options' (manualsonline copy of the IBM "
    "brochure): ISC-3 10 km unrepeated, 100 km repeated; 12x IFB 150 m; 1x IFB 10 km unrepeated, "
    "100 km with a qualified DWDM; IC internal"
)
Z14ZR1_LINKS = (
    "IBM z14 Model ZR1 Configuration Setup (SG24-8651), §9.1.1: ICA SR up to 150 m; CE LR up to "
    "10 km unrepeated and up to 100 km with a qualified DWDM"
)
Z15_ICA = (
    "IBM z15 (8561) Technical Guide (SG24-8851), §4.1.1: ICA SR and ICA SR1.1, two ports of 8 GBps "
    "each (no different distance or subchannels for 1.1 in the stored text)"
)
IOCP_CF_CHANNELS = (
    "IBM IOCP User's Guide, 'Coupling facility channels' (ibm.com/docs/en/systems-hardware/"
    "linuxone/9176-MLR?topic=considerations-coupling-facility-channels): peer links ICP, "
    "ICA SR (CS5) and CE LR (CL5/CL6); internal coupling channels only within one CPC"
)
GDPS_STUDY = (
    "gdps-pprc-100km-2006.txt, 'CF Link Utilization' and Appendix A: peer links support seven "
    "subchannels per link; the test floor's DWDMs only two per link (as with pre-Peer Mode links)"
)


class LinkType(NamedTuple):
    """One coupling link type: how far it reaches and the subchannels a CHPID of it has."""

    name: str  # the name a scenario or --link uses
    chpid_type: str  # IOCP TYPE=
    title: str
    unrepeated_km: float  # longest link without repeaters (0: within the CPC)
    repeated_km: float  # longest link through a qualified DWDM (= unrepeated_km where none)
    subchannels: int  # per CHPID, as HCD defines it by default or IBM recommends
    subchannel_choices: tuple[int, ...]  # the counts the sources name for this type
    era: str  # "2006" (the study's hardware) or "today"
    source: str

    @property
    def reach_km(self) -> float:
        """The longest distance the link serves, through a qualified DWDM where it may use one."""
        return max(self.unrepeated_km, self.repeated_km)


LINK_TYPES: dict[str, LinkType] = {
    link.name: link
    for link in (
        LinkType(
            "IC",
            "ICP",
            "Internal Coupling channel (within one CPC)",
            0.0,
            0.0,
            7,
            (7, 8),
            "2006",
            f"{IOCP_CF_CHANNELS}; {IOCP_COUPLING}; {GDPS_STUDY} (its RMF extract: ICP, SUBCH 7)",
        ),
        LinkType(
            "ISC-3",
            "CFP",
            "InterSystem Channel-3, peer mode",
            10.0,
            100.0,
            7,
            (7,),
            "2006",
            f"{Z10_LINKS}; {GDPS_STUDY}; {IOCP_COUPLING}",
        ),
        LinkType(
            "ISC-3-sender",
            "CFS",
            "InterSystem Channel-3 through the study's DWDMs (sender mode, two subchannels)",
            10.0,
            100.0,
            2,
            (2,),
            "2006",
            f"{GDPS_STUDY}; {IOCP_COUPLING}",
        ),
        LinkType(
            "IFB-12x",
            "CIB",
            "Parallel Sysplex InfiniBand 12x",
            0.15,
            0.15,
            7,
            (7, 32),
            "2006",
            f"{Z10_LINKS}; {HCD_IFB}",
        ),
        LinkType(
            "IFB-1x",
            "CIB",
            "Parallel Sysplex InfiniBand 1x (long reach)",
            10.0,
            100.0,
            32,
            (7, 32),
            "2006",
            f"{Z10_LINKS}; {HCD_IFB}; {IOCP_COUPLING}",
        ),
        LinkType(
            "ICA-SR",
            "CS5",
            "Integrated Coupling Adapter Short Reach",
            0.15,
            0.15,
            8,
            (8,),
            "today",
            f"{Z14ZR1_LINKS}; {IOCP_COUPLING}",
        ),
        LinkType(
            "ICA-SR1.1",
            "CS5",
            "Integrated Coupling Adapter Short Reach 1.1",
            0.15,
            0.15,
            8,
            (8,),
            "today",
            f"{Z15_ICA}; {Z14ZR1_LINKS}; {IOCP_COUPLING}",
        ),
        LinkType(
            "CE-LR",
            "CL5",
            "Coupling Express Long Reach",
            10.0,
            100.0,
            32,
            (8, 32),
            "today",
            f"{Z14ZR1_LINKS}; {IOCP_COUPLING}",
        ),
        LinkType(
            "CE3-LR",
            "CL6",
            "Coupling Express3 Long Reach (CE LR's successor, CHPID type CL6)",
            10.0,
            100.0,
            32,
            (8, 32),
            "today",
            f"{IOCP_CF_CHANNELS} (CE LR as TYPE=CL5/CL6); {IOCP_COUPLING}; its reach: {NO_PUBLIC_FIGURE} "
            "apart from CE LR's, taken as CE LR's",
        ),
    )
}

# The 0 km service of a request on each link type: measured (RMF CF activity report, sync and async
# service time per structure), never defaulted. z/OS MVS Setting Up a Sysplex, 'Coupling facility request
# response time (service time)' tabulates best-case times by model and link, but no stored copy of the
# table was found.
LINK_SERVICE_TIME = NO_PUBLIC_FIGURE


def link_type(name: str, key: str = "link") -> LinkType:
    """The link type called ``name``; InputError naming ``key`` and the known types otherwise."""
    found = LINK_TYPES.get(name)
    if found is None:
        raise InputError(key, name, "one of " + ", ".join(LINK_TYPES))
    return found


def reach_words(link: LinkType) -> str:
    """How far ``link`` reaches, in words: "CE-LR reaches <= 100 km (through a qualified DWDM; 10 km
    unrepeated)"; the one wording for its refusal and for a search that stops there."""
    where = "within one CPC (0 km)" if link.reach_km == 0 else f"<= {link.reach_km:g} km"
    if link.reach_km > link.unrepeated_km:
        where += f" (through a qualified DWDM; {link.unrepeated_km:g} km unrepeated)"
    return f"{link.name} reaches {where}"


def check_reach(link: LinkType, distance_km: float, key: str = "link") -> None:
    """Refuse a link used past its reach: InputError naming ``key``, the link and the distance."""
    if distance_km > link.reach_km:
        raise InputError(key, f"{link.name} at {distance_km:g} km", reach_words(link))


# zHyperLink: point-to-point, the DS8000 within 150 m of the IBM Z server; with Metro Mirror every DS8000
# of the pair within 150 m (zHyperLink writes).
ZHYPERLINK_REACH_KM = 0.15
ZHYPERLINK_SOURCE = (
    "IBM Z Hot Topics 2021, 'zHyperLink Write Support' (zos-hot-topics.com/2021/"
    "zhyperlink-write-support/): in Metro Mirror configurations all DS8000s within 150 m of "
    "the Z server and connected by zHyperLink; IntelliMagic, 'Profiling zHyperLink "
    "performance and usage' "
    "(citing IBM Redbook 'Getting Started with IBM zHyperLink for z/OS', p. 20): a short "
    "direct connection of up to 150 m; z/OS MVS Initialization and Tuning Reference, "
    "ZHYPERLINK statement: reads up to READLIMIT (4 KB + 32, 16 KB with zHyperLink "
    "Acceleration); Db2 ZHYPERLINK subsystem parameter (DATABASE: synchronous reads, "
    "ACTIVELOG: active log writes)"
)

ZHYPERLINK_REACH_WORDS = (
    f"zHyperLink reaches {ZHYPERLINK_REACH_KM * 1e3:g} m (point to point; with Metro Mirror both DS8000s "
    "within it)"
)


def check_zhyperlink_reach(distance_km: float, key: str = "zhyperlink") -> None:
    """Refuse zHyperLink to a disk farther than its reach (InputError naming ``key``)."""
    if distance_km > ZHYPERLINK_REACH_KM:
        raise InputError(key, f"a disk {distance_km:g} km away", ZHYPERLINK_REACH_WORDS)


class MirrorProtocol(NamedTuple):
    """A Metro Mirror write protocol: round trips primary → secondary per mirrored write."""

    name: str
    round_trips: int
    era: str
    source: str


METRO_MIRROR_PROTOCOLS: dict[str, MirrorProtocol] = {
    p.name: p
    for p in (
        MirrorProtocol(
            "pre-deposit",
            1,
            "2006 and today",
            "the DS8000 sends the write command with its data and gets the status back: one "
            "round trip. gdps-pprc-100km-2006.txt: Environment 1's MSTR DISC grows by about 10 us/km, "
            "one round trip per write ('FICON protocol requires one round trip for each I/O'; "
            "casebook case env1-mstr-disc-slope), so the study's DS8000 already wrote this way",
        ),
        MirrorProtocol(
            "fcp",
            2,
            "its predecessor",
            "a standard SCSI write over Fibre Channel: the command and its Transfer Ready, then the "
            "data and the status, two round trips (Cisco MDS 9000 I/O Accelerator configuration "
            "guide, 'SCSI Write Acceleration': 'the WRITE command without write acceleration "
            "requires two round-trip transfers'; the same guide: IBM PPRC is not supported with "
            "FCIP write acceleration, PPRC brings its own)",
        ),
    )
}
METRO_MIRROR_REACH_KM = 300.0
METRO_MIRROR_SOURCE = (
    "IBM DS8000 10th generation documentation, 'Metro Mirror' (ibm.com/docs/en/"
    "ds8000-10th-generation/10.0?topic=copy-metro-mirror): Metro Mirror supports a "
    "maximum distance of 300 km"
)


class DuplexMode(NamedTuple):
    """How a CF structure is duplexed, and the structure kinds that can have it."""

    name: str
    kinds: tuple[str, ...]
    era: str
    source: str


DUPLEX_MODES: dict[str, DuplexMode] = {
    m.name: m
    for m in (
        DuplexMode(
            "simplex",
            ("lock", "cache", "list"),
            "2006 (the study's lock structure)",
            "gdps-pprc-100km-2006.txt: the IRLM lock structure DSNDBR0_LOCK1 in CF1 alone",
        ),
        DuplexMode(
            "sync",
            ("lock", "list"),
            "2006 and today",
            "system-managed CF structure duplexing (z/OS 1.2 and later): each request goes to both "
            "structures, and the two CFs exchange ready-to-execute and ready-to-complete signals before "
            "either answers (US patent 6,859,866, 'Synchronizing processing of commands invoked against "
            "duplexed coupling facility structures'; RMF 74-4 remote facility section, R744RRES and "
            "R744RRCS; z/OS MVS Setting Up a Sysplex, function DUPLEXCF16). Db2 group buffer pools are "
            "duplexed by Db2 itself (user-managed: a 'secondary of' structure), not this way",
        ),
        DuplexMode(
            "async",
            ("lock",),
            "today (Db2 12 and later)",
            "asynchronous CF duplexing of the Db2 lock structure: z/OS 2.2 with OA47796, CFCC service "
            "level 02.16, CF-to-CF links, DUPLEX(...,ASYNC) in the CFRM policy (Db2 12 'Db2 for z/OS "
            "support for asynchronous CF duplexing', ibm.com/docs/en/SSEPEK_13.0.0/inst/src/tpc/"
            "db2z_asyncduplexingcflockstructure.html); the primary CF sends each update on to the "
            "secondary, which confirms it (RMF 74-4 R744ATPOCT, R744ARCPOT)",
        ),
    )
}


def check_duplex_mode(mode: str, kind: str, key: str = "duplexing") -> None:
    """Refuse a duplexing mode the structure kind cannot have (InputError naming ``key``)."""
    known = DUPLEX_MODES.get(mode)
    if known is None:
        raise InputError(key, mode, "one of " + ", ".join(DUPLEX_MODES))
    if kind not in known.kinds:
        allowed = ", ".join(m.name for m in DUPLEX_MODES.values() if kind in m.kinds)
        why = (
            " (Db2 duplexes a group buffer pool itself: declare its 'secondary of' structure)"
            if kind == "cache"
            else ""
        )
        raise InputError(key, f"{mode} for a {kind} structure", f"{allowed} for a {kind} structure{why}")
