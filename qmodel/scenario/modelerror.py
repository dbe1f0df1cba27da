"""The model's own error by kind, as cross-validation across the study's environments sized it: the one
home of :data:`MODEL_FILE`'s figures, which the band (:mod:`qmodel.scenario.band`) and a measured row's
default σ (:func:`qmodel.scenario.measurements.row_sigma`) both read."""

from __future__ import annotations

from functools import cache

from qmodel.scenario.files import shipped_folder
from qmodel.scenario.predictive import ModelError
from qmodel.tomlread import read_toml

MODEL_FILE = shipped_folder().parent / "model" / "model-error.toml"  # beside the shipped scenarios' folder


@cache
def model_error() -> tuple[ModelError, dict[str, tuple[float, float]]]:
    """The model's own error and the range the studies support for each lock parameter, as
    ``qmodel scenario cross-validate --write`` wrote them into :data:`MODEL_FILE` (empty where it has not
    been run)."""
    if not MODEL_FILE.is_file():
        return ModelError(), {}
    data = read_toml(MODEL_FILE, what="model error")
    error = data.get("error", {})
    found = ModelError(
        {kind: float(v["spread"]) for kind, v in error.items()},
        {kind: float(v["growth"]) for kind, v in error.items()},
        str(data.get("method", "")),
    )
    ranges = data.get("studies_range", {})
    return found, {key: (float(low), float(high)) for key, (low, high) in ranges.items()}
