"""Loops written once in plain Python: run as they are for small work, compiled by numba past a size.

Loading numba and a cached kernel costs about half a second of start-up
(numba itself, the cache, the scipy.linalg it pulls in), more than a small
answer's whole loop takes interpreted. A :class:`Kernel` runs its function
as Python while the work asked of it is below :data:`COMPILE_FROM` operations
(the interpreted loop then takes less than that start-up: bench/limits_calibration.py
measures both), and compiled (numba, cached on disk) above it, or once it has
been compiled in this process. The two are the same source, so they agree.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

# operations per second of an interpreted kernel (4e5 to 7e5 measured), and the start-up that
# compiling saves from: numba with a cached kernel, 0.45 to 0.8 s measured
INTERPRETED_RATE = 5e5
COMPILE_START = 0.45
COMPILE_FROM = INTERPRETED_RATE * COMPILE_START  # where the two take as long


class Kernel:
    """A loop over arrays (``function``), with the kernels it calls by name (``calls``)."""

    def __init__(
        self, function: Callable[..., Any], *calls: Kernel, fastmath: bool = False, inline: bool = False
    ) -> None:
        self.function = function
        self.calls = calls
        self.fastmath = fastmath
        self.inline = inline  # compiled into its callers (no call: its arrays are not passed per call)
        self._compiled: Callable[..., Any] | None = None

    def __call__(self, work: float, *args: Any) -> Any:
        """``function(*args)``: interpreted for fewer than COMPILE_FROM operations (``work``), unless
        compiled already in this process; compiled otherwise."""
        if self._compiled is None and work < COMPILE_FROM:
            return self.function(*args)
        return self.compiled(*args)

    def interpreted_steps(self, step_work: float) -> int:
        """How many steps of ``step_work`` operations each may run interpreted before compiling pays
        (0 once compiled): for a loop whose number of steps is not known before it ends."""
        return 0 if self._compiled is not None else int(COMPILE_FROM // max(step_work, 1.0))

    @property
    def compiled(self) -> Callable[..., Any]:
        """The function compiled by numba (cached on disk beside its module), the kernels it calls
        compiled in its namespace."""
        if self._compiled is None:
            import numba

            function = self.function
            namespace = dict(function.__globals__)
            for call in self.calls:
                namespace[call.function.__name__] = call.compiled
            rebound = types.FunctionType(
                function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
            )
            rebound.__qualname__, rebound.__module__ = function.__qualname__, function.__module__
            self._compiled = numba.njit(
                cache=True, fastmath=self.fastmath, inline="always" if self.inline else "never"
            )(rebound)
        return self._compiled
