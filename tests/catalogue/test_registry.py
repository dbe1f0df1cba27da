"""The registry is the only code a data file names: declarations agree, unknown names are refused."""

import numpy as np
import pytest

from qmodel.catalogue.loader import load_catalogue, load_files
from qmodel.catalogue.registry import call, model_function
from qmodel.errors import CatalogueError, InputError
from qmodel.validation.quantities import REGISTRY  # registers the study functions and the scenario

CATALOGUE = load_catalogue()


@pytest.mark.parametrize("formula", [f for f in CATALOGUE.values() if f.model], ids=lambda f: f.id)
def test_a_model_entry_declares_the_inputs_and_outputs_its_function_is_registered_with(formula) -> None:
    entry = model_function(formula.model, "model")
    assert {name: symbol.unit for name, symbol in formula.symbols.items()} == entry.inputs
    assert {output.name: output.unit for output in formula.outputs} == entry.outputs


@pytest.mark.parametrize("formula", [f for f in CATALOGUE.values() if f.algorithm], ids=lambda f: f.id)
def test_an_algorithm_entry_takes_its_symbols_in_the_registered_order(formula) -> None:
    entry = model_function(formula.algorithm, "algorithm")
    assert list(formula.symbols) == list(entry.inputs)


def test_a_catalogue_file_naming_an_unregistered_model_is_refused() -> None:
    text = (
        '[[formula]]\nid = "x"\ntitle = "t"\nsource = "s"\nmodel = "os:system"\n'
        '[formula.symbols.a]\nmeaning = "m"\nunit = "1"\ndomain = "[0, 1]"\n'
        '[[formula.outputs]]\nname = "y"\nunit = "1"\nmeaning = "m"\n'
    )
    with pytest.raises(CatalogueError, match="not in qmodel's registry"):
        load_files([("user.toml", text)])


def test_registered_inputs_take_the_unit_dialect_and_reach_the_function_in_si() -> None:
    outputs = call("distance_slope", {"distance": ["0km", 100], "values": ["300us", 1.3], "round_trips": 1})
    assert outputs["slope"] == pytest.approx(1e-8)  # 10 µs/km in s/m
    assert outputs["intercept"] == pytest.approx(0.3e-3)


def test_an_unknown_input_of_a_registered_function_is_named() -> None:
    with pytest.raises(InputError) as error:
        call("distance_slope", {"distance": [0, 1], "values": [0, 1], "round_trips": 1, "command": "ls"})
    assert error.value.parameter == "command"


def test_every_registered_function_names_units_qmodel_knows() -> None:
    from qmodel.units import UNITS

    for entry in REGISTRY.values():
        assert set(entry.inputs.values()) | set(entry.outputs.values()) <= {*UNITS, "text"}, entry.name
        assert entry.kind in ("algorithm", "model")
        assert callable(entry.function)


def test_the_burst_suspension_gives_the_minutes_the_fluid_time_line_gives() -> None:
    outputs = call(
        "burst_suspension",
        {
            "write_rate": "250MB/s",
            "bandwidth": "361.111MB/s",
            "burst_size": "60GB",
            "burst_rate": "1GB/s",
            "burst_start": "9min",
            "until": "30min",
        },
    )
    assert np.asarray(outputs["first_stop"]) / 60 == pytest.approx(9)
    assert np.asarray(outputs["first_resume"]) / 60 == pytest.approx(18, abs=1e-3)
