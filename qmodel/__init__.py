"""qmodel: analytic queueing models for mainframe storage and Parallel Sysplex capacity planning."""

from pathlib import Path as _Path

__version__ = "0.1.0"

# The data folders formulas/ and casebooks/ sit beside the package in a clone and are installed inside it
# as qmodel.formulas and qmodel.casebooks (setup.cfg). Run from a clone's root, the source folder
# shadows the installed package: there the clone's data folders answer the same names.
_CLONE = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).parent / "formulas").is_dir() and (_CLONE / "formulas" / "__init__.py").is_file():
    __path__.append(str(_CLONE))
