"""The documented Python API and ``python -m`` commands work from a clone's root (issue 31).

The README's set-up (``pip install .``, not editable) leaves a planner at the clone's root, where the
source folder ``qmodel/`` shadows the installed package for ``python -c``, ``python -m`` and a notebook
saved there. Each check here runs in a subprocess with its working directory at the root and an
installed (non-editable) qmodel: the interpreter running the tests where it has one (``.ci/run``
installs with ``pip install .``), else a virtual environment made for the test, with this tree
installed into it the same way.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON_PAGE = ROOT / "docs" / "howto" / "python.md"
# what `pip install .` reads from the tree (setup.cfg: the package and its data folders)
INSTALLED_FROM = ("setup.cfg", "pyproject.toml", "README.md", "LICENSE", "qmodel", "formulas", "casebooks")

# Runs each ```python block of a page and each ```pycon block as a doctest, as tests/test_docs_examples.py
# does, in this process's working directory; then says where qmodel and its data were found.
RUN_PAGE = r"""
import doctest, json, re, sys
from pathlib import Path

text = Path(sys.argv[1]).read_text(encoding="utf-8")
namespace = {}
for kind, source in re.findall(r"^```(python|pycon)[^\n]*\n(.*?)^```", text, flags=re.M | re.S):
    if kind == "python":
        exec(compile(source, "python.md", "exec"), namespace)
    else:
        test = doctest.DocTestParser().get_doctest(source, namespace, "python.md", "python.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, clear_globs=False)
        namespace.update(test.globs)  # a page's blocks run in one namespace
        assert not runner.failures, f"{runner.failures} pycon example(s) failed"
import qmodel, qmodel.casebooks, qmodel.formulas
print(json.dumps({"qmodel": qmodel.__file__, "formulas": list(qmodel.formulas.__path__),
                  "casebooks": list(qmodel.casebooks.__path__)}))
"""


def _installed_here() -> bool:
    """Whether the interpreter running the tests has qmodel installed, not editable."""
    try:
        url = metadata.distribution("qmodel").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    return url is None or not json.loads(url).get("dir_info", {}).get("editable", False)


@pytest.fixture(scope="module")
def python(tmp_path_factory) -> str:
    """An interpreter with qmodel installed as the README installs it (its dependencies as they are)."""
    if _installed_here():
        return sys.executable
    place = tmp_path_factory.mktemp("install")
    tree = place / "tree"
    tree.mkdir()
    for name in INSTALLED_FROM:  # a copy: building in place would leave build/ in the clone
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tree / name)
    venv = place / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    interpreter = venv / "bin" / "python"
    installed = subprocess.run(
        [str(interpreter), "-m", "pip", "install", "--quiet", "--no-deps", str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if installed.returncode != 0:  # no build tools to be had (offline): .ci/run installs and runs this
        pytest.skip("pip install . failed here: " + (installed.stderr.strip().splitlines() or ["?"])[-1])
    return str(interpreter)


def at_root(python: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([python, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_documented_python_api_works_from_the_root(python: str) -> None:
    ran = at_root(python, "-c", RUN_PAGE, str(PYTHON_PAGE))
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout.strip().splitlines()[-1])
    assert Path(found["qmodel"]).parent == ROOT / "qmodel"  # the source folder shadows the installed copy
    assert Path(found["formulas"][-1]) == ROOT / "formulas"  # and the clone's data serve it
    assert Path(found["casebooks"][-1]) == ROOT / "casebooks"


def test_python_m_commands_work_from_the_root(python: str) -> None:
    checked = at_root(
        python, "-m", "qmodel.validation.scorecard", "--check", "README.md", "docs/background/validation.md"
    )
    assert checked.returncode == 0, checked.stderr


def test_the_installed_command_works_from_the_root(python: str) -> None:
    command = Path(python).parent / "qmodel"
    answer = at_root(
        str(command),
        "calc",
        "transaction_elongation",
        "cf_requests=12",
        "sync_writes=4",
        "distance=70km",
        "--format",
        "json",
    )
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout)["outputs"]["elongation"]["value"] == pytest.approx(14.0)
