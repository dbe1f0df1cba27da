"""User catalogues are process-wide once in use: each test starts with none, and a cache of its own."""

import pytest

from qmodel.catalogue.user import forget_catalogues


@pytest.fixture(autouse=True)
def no_user_catalogue(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("QMODEL_CATALOGUE", raising=False)
    forget_catalogues()
    yield
    forget_catalogues()
