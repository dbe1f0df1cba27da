"""What a planner gets from the first install, and what qmodel never tells them to install (issue 23)."""

import builtins
import configparser
import re
from pathlib import Path

import pytest

from qmodel.cli import plotting
from qmodel.errors import MissingPackageError

ROOT = Path(__file__).resolve().parent.parent


def test_plots_come_with_the_base_install():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    required = [
        line.split(">")[0].split("=")[0].strip()
        for line in config["options"]["install_requires"].splitlines()
        if line.strip()
    ]
    assert "matplotlib" in required


def test_no_message_names_an_install_of_a_package_called_qmodel():
    """The name qmodel on the public package index is another project's: following such a hint would
    replace this tool with it."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "qmodel").rglob("*.py")
        if re.search(r"pip install\s+['\"]?qmodel", path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_a_missing_matplotlib_says_so_without_an_install_command(monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.split(".")[0] == "matplotlib":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(MissingPackageError) as raised:
        plotting._pyplot()
    assert "matplotlib" in str(raised.value) and "pip install" not in str(raised.value)


def test_every_package_folder_is_installed():
    """A non-editable install ships only the packages setup.cfg names: a new folder left off the list
    installs a qmodel that fails on import (the CI of stop 38 failed this way on qmodel.tables)."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    listed = {line.strip() for line in config["options"]["packages"].splitlines() if line.strip()}
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "qmodel").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert on_disk - listed == set()
