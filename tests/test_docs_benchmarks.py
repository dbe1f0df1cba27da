"""The docs quote the benchmarks' figures from what the scripts in bench/ last measured (issue 37: a
page quoted 11.6 and 30.3 ms two rounds after they were 1.7-2.0 ms): every marker renders from its
bench/figures file, and every figures file is written by the script of its name."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("docs_benchmarks", ROOT / "docs" / "_hooks" / "benchmarks.py")
assert _spec is not None and _spec.loader is not None
hook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hook)

PAGES = [p for p in (ROOT / "docs").rglob("*.md") if "_hooks" not in p.parts]


def test_every_marker_renders_from_the_figures_its_script_wrote() -> None:
    markers = {name for page in PAGES for name in hook.MARKER.findall(page.read_text(encoding="utf-8"))}
    assert markers == set(hook.RENDERERS)
    for name in markers:
        text = hook.RENDERERS[name]()
        assert "measured 20" in text and "load average" in text
        script = ROOT / "bench" / f"{name.replace('-', '_')}.py"
        assert re.search(rf'record\(\s*"{script.stem}"', script.read_text(encoding="utf-8"))


def test_the_mva_benchmarks_section_quotes_no_timing_by_hand() -> None:
    page = (ROOT / "docs" / "background" / "benchmarks.md").read_text(encoding="utf-8")
    section = page[page.index("## MVA against") : page.index("## User catalogues")]
    assert not re.findall(r"\d[\d,.]* ?(?:ms|s)\b", hook.MARKER.sub("", section))
