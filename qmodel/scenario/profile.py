"""A member's per-transaction profile from what RMF and the CF activity report print: counts or rates.

The reports give CF requests by structure (sync and async, in thousands per interval), SSCH rates by
address space and the transaction count over the same interval; a scenario wants requests, reads and
log writes per transaction:

    per transaction = count over the interval / transactions in it  =  rate / transaction rate

A structure given as parts (``LOCK1.sync``, ``LOCK1.async``) is summed; given with its total as
well (``LOCK1.total``), the parts must add up to it within the rounding of the report (1%), or the
profile is refused: a profile that does not add up is a transcription error, not an input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from qmodel.errors import InputError

PARTS = ("sync", "async", "total")
ROUNDING = 0.01


class Profile(NamedTuple):
    """Per-transaction figures by name (structures and I/O), and the async share per structure."""

    per_transaction: dict[str, float]
    async_share: dict[str, float]

    def toml(self, member: str) -> str:
        """The member's lines for a scenario file."""
        requests = {n: v for n, v in self.per_transaction.items() if n not in ("sync_reads", "log_writes")}
        lines = [f'name = "{member}"']
        lines += [
            f"{name} = {self.per_transaction[name]:.4g}"
            for name in ("sync_reads", "log_writes")
            if name in self.per_transaction
        ]
        lines.append("requests = { " + ", ".join(f"{n} = {v:.4g}" for n, v in requests.items()) + " }")
        return "\n".join(lines)


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
        if part and part not in PARTS:
            raise InputError(name, value, f"NAME, or NAME.{', NAME.'.join(PARTS)}")
        grouped.setdefault(structure, {})[part or "total"] = float(value)
    per_transaction, async_share = {}, {}
    for structure, parts in grouped.items():
        summed = parts.get("sync", 0.0) + parts.get("async", 0.0)
        if (
            ("sync" in parts or "async" in parts)
            and "total" in parts
            and abs(summed - parts["total"]) > ROUNDING * max(parts["total"], 1.0)
        ):
            raise InputError(
                f"{structure}.total",
                f"{parts['total']:g}",
                f"sync + async = {summed:g} (within {ROUNDING:.0%})",
                reason="the profile does not add up",
            )
        total = parts.get("total", summed)
        per_transaction[structure] = total / transactions
        if "async" in parts and total > 0:
            async_share[structure] = parts["async"] / total
    return Profile(per_transaction, async_share)
