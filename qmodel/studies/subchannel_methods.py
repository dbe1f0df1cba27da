"""The study's rule of thumb for CF subchannels and Erlang C side by side (``qmodel subchannels``).

Composes catalogue entries (``subchannel_rule``, ``erlang_c_subchannels``, ``cf_links_needed``), so it
sits above the catalogue; the Erlang C sizing itself (:mod:`qmodel.studies.subchannels`) sits below it,
where the catalogue's generated code calls it.
"""

from __future__ import annotations

from typing import NamedTuple

from qmodel.catalogue.evaluate import calc


class SubchannelAnswer(NamedTuple):
    """One method's answer to "how many subchannels for the target delayed fraction"."""

    method: str
    assumes: str
    subchannels: float      # as computed (the rule gives a fraction)
    whole: int              # whole subchannels to configure
    links: int              # CF links at the given subchannels per link
    more_needed: int        # subchannels beyond those measured (0: the target is met)


def compare_methods(delayed_fraction: float, measured_subchannels: float = 2, target_delayed: float = 0.1,
                    subchannels_per_link: float = 7) -> list[SubchannelAnswer]:
    """The study's Appendix B rule and Erlang C side by side, for one measured delayed fraction.

    Rule (catalogue ``subchannel_rule``): each subchannel busy independently,
    subchannels = log(target) / log(del^(1/k)). Erlang C (``erlang_c_subchannels``):
    one M/M/c queue whose offered load gives the measured fraction. Links from
    ``cf_links_needed``. Ratios as fractions.
    """
    rule = calc("subchannel_rule", delayed_fraction=delayed_fraction,
                measured_subchannels=measured_subchannels, target_delayed=target_delayed,
                subchannels_per_link=subchannels_per_link)
    queue = calc("erlang_c_subchannels", delayed_fraction=delayed_fraction,
                 measured_subchannels=measured_subchannels, target_delayed=target_delayed)
    queue_links = calc("cf_links_needed", subchannels=queue.subchannels,
                       subchannels_per_link=subchannels_per_link)
    return [
        SubchannelAnswer("rule (Appendix B)", "subchannels busy independently", float(rule.subchannels),
                         int(rule.subchannels_needed), int(rule.links_needed), int(rule.more_needed)),
        SubchannelAnswer("Erlang C (M/M/c)", "one queue, Poisson arrivals, exponential service",
                         float(queue.subchannels), int(queue.subchannels), int(queue_links.links_needed),
                         int(queue.more_needed)),
    ]
