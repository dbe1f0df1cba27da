"""A member's per-transaction profile from what RMF and the CF activity report print: counts or rates.

The reports give CF requests by structure (sync and async, in thousands per interval), SSCH rates by
address space and the transaction count over the same interval; a scenario wants requests, reads and
log writes per transaction:

    per transaction = count over the interval / transactions in it  =  rate / transaction rate

A structure given as parts (``LOCK1.sync``, ``LOCK1.async``) is summed; given with its total as
well (``LOCK1.total``), the parts must add up to it within the rounding of the report (1%), or the
profile is refused: a profile that does not add up is a transcription error, not an input. A total
and one part (as RMF prints total and sync) give the other part as the rest; a part larger than the
total is refused the same way.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import NamedTuple

from qmodel.errors import InputError

PARTS = ("sync", "async", "total")
KEYWORDS = ("sync_reads", "log_writes")
ROUNDING = 0.01
# a CF structure name as z/OS allows it (IXLCONN STRNAME): upper case letters, digits, $ @ # _,
# a letter first, up to 16 characters, as the CF activity report prints it
STRUCTURE_NAME = re.compile(r"[A-Z][A-Z0-9$@#_]{0,15}")
BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class Profile(NamedTuple):
    """Per-transaction figures by name (structures and I/O), and the async share per structure."""

    per_transaction: dict[str, float]
    async_share: dict[str, float]

    def toml(self, member: str) -> str:
        """The member's lines for a scenario file, as TOML, and the async shares as comments saying
        where they go (``converted`` of a [link.NAME] is by structure kind, which the counts do not
        tell)."""
        requests = {n: v for n, v in self.per_transaction.items() if n not in KEYWORDS}
        lines = ["[[member]]", f"name = {_string(member)}"]
        given = [name for name in KEYWORDS if name in self.per_transaction]
        lines += [f"{name} = {self.per_transaction[name]:.4g}" for name in given]
        if requests:
            pairs = ", ".join(f"{_key(name)} = {value:.4g}" for name, value in requests.items())
            lines.append(f"requests = {{ {pairs} }}")
        if self.async_share:
            shares = ", ".join(f"{_key(name)} {share:.1%}" for name, share in self.async_share.items())
            first = next(iter(self.async_share.items()))
            lines += [
                f"# async at 0 km: {shares}",
                f"# goes in the [link.NAME] of {_string(member)}'s path to the structure's CF, by its kind",
                "# (lock, cache or list, as in [[cf]] structures), e.g. for a cache structure:",
                f'# converted = {{ cache = "{first[1]:.1%}" }}',
            ]
        return "\n".join(lines)


def _string(text: str) -> str:
    """A TOML basic string holding ``text`` exactly: quotes, backslashes and control characters
    escaped (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _key(name: str) -> str:
    """A TOML key: bare where TOML allows it (A-Z a-z 0-9 _ -), else quoted (GBP$1, LOCK@2, #X)."""
    return name if BARE_KEY.fullmatch(name) else _string(name)


def profile(counts: Mapping[str, float], transactions: float) -> Profile:
    """Per-transaction figures from counts over an interval and that interval's transactions
    (or from rates and the transaction rate: the same division). Names: a structure (``LOCK1``),
    its parts (``LOCK1.sync``, ``LOCK1.async``, ``LOCK1.total``), ``sync_reads``, ``log_writes``."""
    if not transactions > 0:
        raise InputError("transactions", transactions, "> 0")
    grouped: dict[str, dict[str, float]] = {}
    for name, value in counts.items():
        if not value >= 0:
            raise InputError(name, value, ">= 0")
        structure, _, part = name.partition(".")
        _check_name(name, structure, value)
        if part and part not in PARTS:
            raise InputError(name, value, f"NAME, or NAME.{', NAME.'.join(PARTS)}")
        grouped.setdefault(structure, {})[part or "total"] = float(value)
    per_transaction, async_share = {}, {}
    for structure, parts in grouped.items():
        given = [part for part in ("sync", "async") if part in parts]
        if "total" in parts and len(given) == 1:  # the other part is the rest, as RMF prints total and sync
            other = "async" if given == ["sync"] else "sync"
            parts[other] = max(parts["total"] - parts[given[0]], 0.0)
        summed = parts.get("sync", 0.0) + parts.get("async", 0.0)
        if given and "total" in parts and abs(summed - parts["total"]) > ROUNDING * max(parts["total"], 1.0):
            raise InputError(
                f"{structure}.total",
                f"{parts['total']:g}",
                f"sync + async = {summed:g} (within {ROUNDING:.0%})",
                reason="the profile does not add up",
            )
        total = parts.get("total", summed)
        if not math.isfinite(total / transactions):
            raise InputError(
                structure,
                f"{total:g} over {transactions:g} transactions",
                "counts whose sum per transaction is a finite number",
                reason="too large",
            )
        per_transaction[structure] = total / transactions
        if "async" in parts and total > 0:
            async_share[structure] = parts["async"] / total
    return Profile(per_transaction, async_share)


def _check_name(name: str, structure: str, value: float) -> None:
    """A name is sync_reads, log_writes or a structure as z/OS names it (upper case, e.g. LOCK1);
    anything else is a typo, refused with the nearest name."""
    if name in KEYWORDS or STRUCTURE_NAME.fullmatch(structure):
        return
    close = difflib.get_close_matches(name.lower(), KEYWORDS, n=1, cutoff=0.7)
    if close:
        reason = f"did you mean {close[0]}?"
    elif STRUCTURE_NAME.fullmatch(structure.upper()):
        reason = f"a structure name is upper case, as the CF activity report prints it: {structure.upper()}"
    else:
        reason = "neither a count nor a CF structure name"
    raise InputError(
        name,
        f"{value:g}",
        f"{', '.join(KEYWORDS)}, or a CF structure (upper case, up to 16 characters: LOCK1, GBP8P.async)",
        reason=reason,
    )
