"""qmodel's errors: one base class, one line of message each, and the exit status the CLI gives it.

| error               | what went wrong                                           | exit status |
| ------------------- | --------------------------------------------------------- | ----------- |
| InputError          | a value, flag, cell or file the user gave is not allowed  | 2           |
| CatalogueError      | a formula, casebook, model or scenario file is malformed   | 2           |
| ConvergenceError    | an iterative method did not reach its answer              | 3           |
| MissingPackageError | an optional package (matplotlib for --plot) is missing    | 4           |

Exit status 1 is kept for "the command ran and found a failure": rows of a CSV
batch that failed, an unexplained miss in ``qmodel validate``.
"""

from __future__ import annotations


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
        where = f"row {self.row}: " if self.row is not None else ""
        why = f" ({self.reason})" if self.reason else ""
        return f"{where}{self.parameter} = {self.value!s}{why}; allowed: {self.allowed}"

    def at_row(self, row: int) -> InputError:
        """The same error, located at a batch row."""
        return InputError(self.parameter, self.value, self.allowed, reason=self.reason, row=row)


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
