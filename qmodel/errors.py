"""qmodel's errors: one base class, one line of message each, and the exit status the CLI gives it.

| error               | what went wrong                                           | exit status |
| ------------------- | --------------------------------------------------------- | ----------- |
| InputError          | a value, flag, cell or file the user gave is not allowed  | 2           |
| HeaderError         | an InputError: a table's header lacks a column it needs    | 2           |
| CatalogueError      | a formula, casebook, model or scenario file is malformed   | 2           |
| ConvergenceError    | an iterative method did not reach its answer              | 3           |
| MissingPackageError | an optional package (matplotlib for --plot) is missing    | 4           |

Exit status 1 is kept for "the command ran and found a failure": rows of a CSV
batch that failed, an unexplained miss in ``qmodel validate``. A run that did not finish says so:

| what happened                                      | exit status           |
| -------------------------------------------------- | --------------------- |
| interrupted: Ctrl-C (SIGINT), :class:`Interrupted`  | 130 (128 + 2)         |
| terminated: ``kill`` (SIGTERM), :class:`Interrupted` | 143 (128 + 15)       |
| standard output closed by its reader (``head -1``) | 141 (128 + SIGPIPE)   |

as a shell tool killed by the signal gives, so ``set -o pipefail`` scripts read them as theirs. An
interrupted run leaves every output file as it was (:mod:`qmodel.outfile`).
"""

from __future__ import annotations

from qmodel.safetext import clipped


class QmodelError(Exception):
    """Base of qmodel's own errors; ``str(error)`` is the one-line message the CLI prints."""

    exit_status = 2


class InputError(QmodelError, ValueError):
    """Bad input: names the parameter, the value given, what is allowed and, in a batch, the row.

    ``row`` is the 1-based data row of a CSV batch (the header is row 0), or None.
    The CLI prints ``str(error)`` as one line and exits with status 2.
    """

    def __init__(
        self,
        parameter: str,
        value: object,
        allowed: str,
        *,
        reason: str = "",
        row: int | None = None,
    ) -> None:
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        self.reason = reason
        self.row = row
        super().__init__(self.message())

    def message(self) -> str:
        """The one line: ``[row N: ]parameter = value (reason); allowed: ...``, each part shown with its
        control characters escaped and cut to a readable length (:func:`qmodel.safetext.clipped`)."""
        where = f"row {self.row}: " if self.row is not None else ""
        why = f" ({clipped(self.reason, 400)})" if self.reason else ""
        # the parameter may be a path with what was found in it (a sheet's size): room for both
        return (
            f"{where}{clipped(str(self.parameter), 400)} = {clipped(str(self.value))}{why}; "
            f"allowed: {clipped(str(self.allowed), 600)}"
        )

    def at_row(self, row: int) -> InputError:
        """The same error, located at a batch row."""
        return InputError(self.parameter, self.value, self.allowed, reason=self.reason, row=row)


class HeaderError(InputError):
    """An :class:`InputError` on a table's header: it names none, or not all, of the columns the reader
    needs (``parameter`` is ``columns``, or ``FILE: columns``). A workbook read from its first sheet by
    default offers its other sheets with it (:func:`qmodel.tables.files.offering_other_sheets`)."""


class CatalogueError(QmodelError):
    """A formula catalogue, casebook, model or scenario file is malformed; the message names the
    file and entry."""


class ConvergenceError(QmodelError):
    """An iterative method (approximate MVA, a fixed point, a search) did not reach its answer.

    The message says which method, how far it got and what to try instead.
    """

    exit_status = 3


class MissingPackageError(QmodelError):
    """An optional package a command needs is not installed; the message says how to install it."""

    exit_status = 4


CLOSED_OUTPUT_STATUS = 141  # 128 + SIGPIPE: standard output closed by its reader


class Interrupted(BaseException):
    """The run was stopped by a signal before it finished (Ctrl-C: SIGINT; ``kill``: SIGTERM).

    A BaseException, as KeyboardInterrupt is, so that no handler of ordinary errors takes it for one;
    ``exit_status`` is 128 + the signal's number (130, 143)."""

    def __init__(self, signal_number: int, name: str) -> None:
        self.exit_status = 128 + signal_number
        self.name = name
        super().__init__(f"interrupted by {name} before the end; any output file was left as it was")
