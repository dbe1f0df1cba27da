"""The registry of named model functions: the only Python code a data file may name.

A formula entry names a stable recursion (``algorithm = "erlang_c"``) or a
model function (``model = "erlang_c_subchannels"``); a casebook case names a
catalogue entry or a registry function as its quantity
(``quantity = "distance_slope.slope_per_round_trip"``). Every such name is
looked up here, and nothing else is imported or evaluated: a name that is not
in the registry is refused with the list of those that are.

Each function declares its inputs and outputs with their display units. Values
reach the function in SI units (s, 1/s, m, B) and its outputs are SI too; a
data file writes inputs in the unit dialect of :mod:`qmodel.units` (``"70km"``,
``"4ms"``, ``"95%"``, or a bare number in the declared unit), lists element-wise.

Kinds: an ``algorithm`` takes its inputs positionally in the declared order and
returns one array (the catalogue cross-checks it against its textbook
definition at 50 digits); a ``model`` takes keywords and returns its outputs by
name.

The registry is the catalogue's: it holds what catalogue entries name (the stable
recursions of :mod:`qmodel.algorithms`, the Erlang C subchannel sizing). The layers
above register what they add (:func:`register`): the study functions and the scenario
that casebooks name as quantities register from :mod:`qmodel.validation.quantities`.
Every import points down.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from qmodel.algorithms import queueing, subchannels
from qmodel.errors import InputError
from qmodel.units import UNITS, parse_value


class ModelFunction(NamedTuple):
    """A function data files may name: its inputs and outputs with their display units."""

    name: str
    kind: str  # "algorithm" (one array, positional) or "model" (outputs by name)
    function: Callable[..., Any]
    inputs: dict[str, str]  # name → display unit, in call order ("text": a name, passed as it is)
    outputs: dict[str, str]  # name → display unit
    title: str
    defaults: tuple[tuple[str, object], ...] = ()  # (input, value it takes when left out)
    meanings: tuple[tuple[str, str], ...] = ()  # (output, what it means) where the title says too little


_ERLANG = {"servers": "1", "offered_load": "1"}
_MMCK = {"servers": "1", "capacity": "1", "offered_load": "1"}

REGISTRY: dict[str, ModelFunction] = {
    entry.name: entry
    for entry in (
        ModelFunction(
            "erlang_b",
            "algorithm",
            queueing.erlang_b,
            _ERLANG,
            {"blocking_probability": "ratio"},
            "Erlang B by the Jagerman recursion",
        ),
        ModelFunction(
            "erlang_c",
            "algorithm",
            queueing.erlang_c,
            _ERLANG,
            {"wait_probability": "ratio"},
            "Erlang C from the Erlang B recursion",
        ),
        ModelFunction(
            "mmck_blocking",
            "algorithm",
            queueing.mmck_blocking,
            _MMCK,
            {"blocking_probability": "ratio"},
            "M/M/c/K full-system probability, scaled recursion",
        ),
        ModelFunction(
            "mmck_mean_number",
            "algorithm",
            queueing.mmck_mean_number,
            _MMCK,
            {"number_in_system": "1"},
            "M/M/c/K mean number in the system, scaled recursion",
        ),
        ModelFunction(
            "mmck_mean_queue",
            "algorithm",
            queueing.mmck_mean_queue,
            _MMCK,
            {"number_waiting": "1"},
            "M/M/c/K mean number waiting, scaled recursion",
        ),
        ModelFunction(
            "erlang_cdf",
            "algorithm",
            queueing.erlang_cdf,
            {"shape": "1", "x": "1"},
            {"probability": "ratio"},
            "Erlang-k distribution function, term by term",
        ),
        ModelFunction(
            "batch_erlang_c",
            "algorithm",
            subchannels.batch_erlang_c,
            {**_ERLANG, "mean_batch": "1"},
            {"wait_probability": "ratio"},
            "Batch Erlang C (geometric batches) by a scaled recursion",
        ),
        ModelFunction(
            "erlang_c_subchannels",
            "model",
            subchannels.erlang_c_subchannels,
            {"measured_subchannels": "1", "delayed_fraction": "ratio", "target_delayed": "ratio"},
            {"offered_load": "1", "subchannels": "1", "wait_probability": "ratio", "more_needed": "1"},
            "Subchannels for a target delayed fraction by Erlang C, from a measured fraction",
        ),
        ModelFunction(
            "erlang_c_subchannels_from_rate",
            "model",
            subchannels.erlang_c_subchannels_from_rate,
            {"request_rate": "1/s", "service_time": "ms", "target_delayed": "ratio"},
            {"offered_load": "1", "subchannels": "1", "wait_probability": "ratio"},
            "Subchannels for a target delayed fraction by Erlang C, from rate × service time",
        ),
        ModelFunction(
            "gamma_cdf",
            "algorithm",
            queueing.gamma_cdf,
            {"shape": "1", "x": "1"},
            {"probability": "ratio"},
            "Gamma distribution function, series or continued fraction",
        ),
    )
}


def register(*entries: ModelFunction) -> None:
    """Add functions an upper layer offers to data files; a name registered twice is a programming error."""
    for entry in entries:
        if REGISTRY.get(entry.name, entry) != entry:
            raise ValueError(f"{entry.name} is registered already")
        REGISTRY[entry.name] = entry


def model_function(name: str, kind: str | None = None) -> ModelFunction:
    """The registered function ``name`` (of ``kind``, if given); InputError listing the known names."""
    entry = REGISTRY.get(name)
    if entry is None or (kind is not None and entry.kind != kind):
        known = sorted(n for n, e in REGISTRY.items() if kind is None or e.kind == kind)
        raise InputError(
            kind or "model function",
            repr(name),
            "one of " + ", ".join(known),
            reason="not in qmodel's registry",
        )
    return entry


def si_inputs(entry: ModelFunction, given: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """Typed inputs (``"70km"``, numbers in the declared unit, lists of either) in SI units.

    An input the function does not declare, or a missing one, is an InputError.
    """
    prefix = f"{where}: " if where else ""
    unknown = sorted(set(given) - set(entry.inputs))
    if unknown:
        raise InputError(
            f"{prefix}{unknown[0]}",
            given[unknown[0]],
            "the inputs " + ", ".join(entry.inputs),
            reason=f"not an input of {entry.name}",
        )
    given = {**dict(entry.defaults), **given}
    missing = [name for name in entry.inputs if name not in given]
    if missing:
        raise InputError(
            f"{prefix}{missing[0]}", "missing", f"every input of {entry.name}: " + ", ".join(entry.inputs)
        )
    values: dict[str, Any] = {}
    for name, unit in entry.inputs.items():
        value = given[name]
        if unit == "text":
            if not isinstance(value, str):
                raise InputError(f"{prefix}{name}", repr(value), "a name, as text")
            values[name] = value
            continue
        scale = UNITS[unit].to_si
        if isinstance(value, list):
            values[name] = np.array([parse_value(name, item, unit) for item in value]) * scale
        else:
            values[name] = parse_value(name, value, unit) * scale
    return values


def call(name: str, given: Mapping[str, Any], where: str = "") -> dict[str, np.ndarray]:
    """Run a registered function on typed inputs; its outputs by name, in SI units."""
    entry = model_function(name)
    values = si_inputs(entry, given, where)
    if entry.kind == "algorithm":
        (output,) = entry.outputs
        return {output: entry.function(*values.values())}
    return entry.function(**values)
