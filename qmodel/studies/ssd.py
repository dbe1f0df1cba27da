"""SSD candidate analysis (ssd-rmf-tools-2012.txt): which datasets to move to SSD, in what order.

The filter itself is the catalogue entry ``ssd_candidate``; this module ranks
what passes it, for ``qmodel ssd-candidates``.
"""

from __future__ import annotations

import numpy as np

from qmodel.errors import InputError


def ranked_candidates(outputs: dict[str, np.ndarray], errors: dict[int, InputError]) -> list[int]:
    """Rows of ``ssd_candidate`` that pass the filter, most read disconnect time first."""
    if not outputs:
        return []
    passing = [row for row in np.flatnonzero(outputs["candidate"] == 1).tolist() if row not in errors]
    return sorted(passing, key=lambda row: -outputs["read_disc_rate"][row])
