"""The generated numpy code is current, and the quick path stays light."""

import subprocess
import sys
from pathlib import Path

from qmodel.catalogue import _compiled
from qmodel.catalogue.codegen import generate


def test_generated_module_is_up_to_date_with_the_catalogue() -> None:
    committed = Path(_compiled.__file__).read_text(encoding="utf-8")
    assert committed == generate(), (
        "run `python -m qmodel.catalogue.codegen` and commit qmodel/catalogue/_compiled.py"
    )


def test_quick_answer_imports_neither_sympy_nor_scipy(tmp_path) -> None:
    script = (
        "import sys\n"
        "from qmodel.cli import main\n"
        "sys.argv = ['qmodel', 'calc', 'mmc', 'arrival_rate=35K', 'service_time=150us', 'servers=8']\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert done.code == 0, done.code\n"
        "heavy = sorted(m for m in sys.modules\n"
        "               if m.split('.')[0] in ('sympy', 'scipy', 'numba', 'matplotlib'))\n"
        "print('HEAVY', heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )  # outside the source tree: the installed qmodel answers
    assert "HEAVY []" in result.stdout, result.stdout
