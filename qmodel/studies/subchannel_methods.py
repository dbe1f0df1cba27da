"""The study's rule of thumb for CF subchannels and Erlang C side by side (``qmodel subchannels``).

Composes catalogue entries (``subchannel_rule``, ``erlang_c_subchannels``, ``cf_links_needed``), so it
sits above the catalogue; the Erlang C sizing itself (:mod:`qmodel.algorithms.subchannels`) sits below it,
where the catalogue's generated code calls it.
"""

from __future__ import annotations

from typing import NamedTuple

from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.loader import get_formula
from qmodel.errors import InputError

# round trips per CF request: the catalogue's one default (cf_round_trips), for distance_growth too


class SubchannelAnswer(NamedTuple):
    """One method's answer to "how many subchannels for the target delayed fraction"."""

    method: str
    assumes: str
    subchannels: float  # as computed (the rule gives a fraction)
    whole: int  # whole subchannels to configure
    links: int  # CF links at the given subchannels per link
    more_needed: int  # subchannels beyond those measured (0: the target is met)


def compare_methods(
    delayed_fraction: float,
    measured_subchannels: float = 2,
    target_delayed: float = 0.1,
    subchannels_per_link: float = 7,
) -> list[SubchannelAnswer]:
    """The study's Appendix B rule and Erlang C side by side, for one measured delayed fraction.

    Rule (catalogue ``subchannel_rule``): each subchannel busy independently,
    subchannels = log(target) / log(del^(1/k)). Erlang C (``erlang_c_subchannels``):
    one M/M/c queue whose offered load gives the measured fraction. Links from
    ``cf_links_needed``. Ratios as fractions.
    """
    rule = calc(
        "subchannel_rule",
        delayed_fraction=delayed_fraction,
        measured_subchannels=measured_subchannels,
        target_delayed=target_delayed,
        subchannels_per_link=subchannels_per_link,
    )
    queue = calc(
        "erlang_c_subchannels",
        delayed_fraction=delayed_fraction,
        measured_subchannels=measured_subchannels,
        target_delayed=target_delayed,
    )
    queue_links = calc(
        "cf_links_needed", subchannels=queue.subchannels, subchannels_per_link=subchannels_per_link
    )
    return [
        SubchannelAnswer(
            "rule (Appendix B)",
            "subchannels busy independently",
            float(rule.subchannels),
            int(rule.subchannels_needed),
            int(rule.links_needed),
            int(rule.more_needed),
        ),
        SubchannelAnswer(
            "Erlang C (M/M/c)",
            "one queue, Poisson arrivals, exponential service",
            float(queue.subchannels),
            int(queue.subchannels),
            int(queue_links.links_needed),
            int(queue.more_needed),
        ),
    ]


class DistanceAnswer(NamedTuple):
    """Erlang C's subchannels at one distance, with what the distance adds to each request."""

    distance: float  # km from the z/OS image to the CF
    propagation: float  # us per request (cf_round_trips round trips)
    holding_time: float  # us a request holds its subchannel
    converted_fraction: float  # of the requests, converted to async (0 where no threshold is assumed)
    offered_load: float  # erlangs: request rate × holding time
    subchannels: int  # fewest with Erlang C <= target
    wait_probability: float  # delayed fraction expected on them
    links: int  # CF links at the subchannels per link
    more_needed: int  # beyond those measured


def subchannels_at_distance(
    distances: list[float],
    delayed_fraction: float,
    measured_subchannels: float,
    target_delayed: float,
    subchannels_per_link: float,
    service_time: float,
    async_service: float | None = None,
    converted_at_zero: float = 0.0,
    threshold: float | None = None,
) -> list[DistanceAnswer]:
    """Subchannels for the target delayed fraction with the CF at each distance (km), by Erlang C.

    The measured delayed fraction on the measured subchannels gives the offered load at 0 km
    (``erlang_c_subchannels``); with the holding time measured at 0 km (``service_time``, us, the sync
    service time) it gives the request rate. At a distance every request holds its subchannel longer by
    its propagation, so the offered load grows at the same rate, and ``erlang_c_subchannels_from_rate``
    sizes the pool. Without a ``threshold`` every request stays synchronous (``distance_growth``); with
    one (us, assumed: z/OS does not publish it) ``cf_request_at_distance`` estimates the share converted
    to async, which holds its subchannel for the async service time (``async_service``, us, and
    ``converted_at_zero`` as measured).
    Links from ``cf_links_needed``. Ratios as fractions.
    """
    if threshold is None and (async_service is not None or converted_at_zero):
        raise InputError(
            "async_service" if async_service is not None else "converted_at_zero",
            async_service if async_service is not None else converted_at_zero,
            "given with an assumed threshold (conversion to async is modelled only then)",
        )
    measured = calc(
        "erlang_c_subchannels",
        delayed_fraction=delayed_fraction,
        measured_subchannels=measured_subchannels,
        target_delayed=target_delayed,
    )

    cf_round_trips = get_formula("cf_request_at_distance").symbols["cf_round_trips"].declared_default()

    def holding(km: float) -> tuple[float, float, float]:
        """(propagation, holding time, converted fraction) at ``km``, us."""
        if threshold is None:
            grown = calc(
                "distance_growth",
                units="si",
                time_at_zero=service_time * 1e-6,
                distance=km * 1e3,
                round_trips=cf_round_trips,
            )
            return float(grown.added_time) * 1e6, float(grown.time_at_distance) * 1e6, 0.0
        request = calc(
            "cf_request_at_distance",
            sync_service_at_zero=service_time,
            async_service_at_zero=service_time if async_service is None else async_service,
            converted_at_zero=converted_at_zero,
            distance=km,
            threshold=threshold,
        )
        return (float(request.propagation), float(request.subchannel_time), float(request.converted_fraction))

    rate = float(measured.offered_load) / (holding(0.0)[1] * 1e-6)  # requests per second
    answers = []
    for km in distances:
        propagation, busy, converted = holding(km)
        sized = calc(
            "erlang_c_subchannels_from_rate",
            request_rate=rate,
            service_time=f"{busy!r}us",
            target_delayed=target_delayed,
        )
        links = calc(
            "cf_links_needed", subchannels=sized.subchannels, subchannels_per_link=subchannels_per_link
        )
        whole = int(sized.subchannels)
        answers.append(
            DistanceAnswer(
                km,
                propagation,
                busy,
                converted,
                float(sized.offered_load),
                whole,
                float(sized.wait_probability),
                int(links.links_needed),
                max(0, whole - int(measured_subchannels)),
            )
        )
    return answers
