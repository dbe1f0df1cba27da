"""The one exception type for bad input, carried from the parser to the CLI."""

from __future__ import annotations


class InputError(ValueError):
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


class CatalogueError(Exception):
    """A formula catalogue or casebook file is malformed; the message names the file and entry."""
