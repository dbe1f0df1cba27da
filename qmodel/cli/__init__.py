"""The ``qmodel`` command line: one module per command family, loaded when its command runs.

| module      | commands                                     |
| ----------- | -------------------------------------------- |
| formula     | formula list, formula show                   |
| calc        | calc, sweep, solve, batch                    |
| mva         | mva                                          |
| studies     | subchannels, mirror-timeline, ssd-candidates |
| scenario    | scenario, scenario-profile                   |
| validate    | validate                                     |
| check       | check                                        |

A command module parses its arguments, calls the layer below (catalogue,
networks, studies, validation) and renders the result; shared options and the
one-line error handling are in :mod:`qmodel.cli.common`. Only the module of the
command being run is imported, so the quick path (``qmodel calc``) loads
click, numpy and rich, never sympy, scipy or numba.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys

import click

from qmodel.cli.common import OutputClosedError, QmodelGroup
from qmodel.errors import CLOSED_OUTPUT_STATUS, Interrupted
from qmodel.outfile import whole_writes

# command name → (module of qmodel.cli, attribute); the only place a command is registered
COMMANDS = {
    "formula": ("formula", "formula"),
    "calc": ("calc", "calc"),
    "sweep": ("calc", "sweep"),
    "solve": ("calc", "solve"),
    "batch": ("calc", "batch"),
    "mva": ("mva", "mva"),
    "subchannels": ("studies", "subchannels"),
    "mirror-timeline": ("studies", "mirror_timeline"),
    "ssd-candidates": ("studies", "ssd_candidates"),
    "scenario": ("scenario", "scenario"),
    "scenario-profile": ("scenario", "scenario_profile"),
    "validate": ("validate", "validate"),
    "check": ("check", "check"),
}


class LazyGroup(QmodelGroup):
    """The top-level group: commands are imported from their modules only when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        return getattr(importlib.import_module(f"qmodel.cli.{module}"), attribute)


@click.group(
    cls=LazyGroup,
    epilog="""\b
Worked example: an M/M/1 device with 800 I/Os per second, 1 ms service:
  $ qmodel calc mm1 arrival_rate=800 service_time=1ms
  -> utilization 0.8, response_time 5 ms, number_in_system 4
\b
More: qmodel formula list | qmodel formula show mmc | qmodel validate
\b
Docs: docs/index.md, every command docs/reference/commands.md: pages of
the site, built from the repository's docs/ (pip install ".[docs]" &&
mkdocs build) and opened from site/index.html; docs/X.md is site/X.html.""",
)
@click.version_option(package_name="qmodel")
def cli() -> None:
    """qmodel: analytic queueing models for mainframe storage and Parallel Sysplex sizing."""


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")  # numpy's BLAS thread counts


def _interrupt(signal_number: int, frame: object) -> None:
    """Ctrl-C or ``kill``: raised as :class:`qmodel.errors.Interrupted`, which every writer cleans up after
    (the output file left as it was) and :func:`main` ends with 128 + the signal's number."""
    raise Interrupted(
        signal_number,
        "Ctrl-C (SIGINT)" if signal_number == signal.SIGINT else signal.Signals(signal_number).name,
    )


def main() -> None:
    """Console-script entry point. Output cut short by its reader ends the command quietly, with
    :data:`qmodel.errors.CLOSED_OUTPUT_STATUS` (141) and no traceback: what is still buffered goes to the
    null device (as the Python documentation advises for SIGPIPE), since flushing it at exit would fail
    again. Ctrl-C and SIGTERM end it with 130 and 143 and one line, every output file left as it was
    (:class:`qmodel.errors.Interrupted`). Output that cannot be written at all (standard output closed,
    a full disk, ``> /dev/full``) is one line on standard error and exit status 2."""
    # A command's arrays are small: BLAS threads cost more to start and join than they save (measured:
    # qmodel scenario gdps-env2 --max-distance, whole process, 0.66 s with the default threads, 0.45 s
    # with one; bench/scenario_speed.py). Set before numpy loads (no command module is imported yet); a
    # value the user has set wins.
    for variable in BLAS_THREADS:
        os.environ.setdefault(variable, "1")
    if sys.stdout is None:  # started with standard output closed (``qmodel ... >&-``)
        sys.stderr.write(
            "error: standard output is closed; allowed: an open standard output (qmodel ... > FILE)\n"
        )
        sys.exit(2)
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is not signal.SIG_IGN:  # a run started to ignore it keeps ignoring it
            signal.signal(number, _interrupt)
    sys.stdout = whole_writes(sys.stdout)
    try:
        try:
            cli.main(prog_name="qmodel")
        finally:
            sys.stdout.flush()  # output still buffered at exit meets the closed pipe here
    except (OutputClosedError, BrokenPipeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(CLOSED_OUTPUT_STATUS)
    except Interrupted as stop:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the message short
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        sys.stderr.write(f"error: {stop}\n")
        sys.exit(stop.exit_status)
    except OSError as error:  # the output could not be written: a full disk, /dev/full, an I/O error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        where = error.filename or "standard output"
        sys.stderr.write(
            f"error: output = {where} ({error.strerror or error}); allowed: a place the answer "
            "can be written\n"
        )
        sys.exit(2)
