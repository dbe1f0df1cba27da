"""Every example in README.md and docs/ runs, and shows what the tool prints today.

The convention (docs/contributing/docs.md):

- a ```console block holds commands after ``$ `` and, under each, the output it shows; each command
  runs in bash, from a temporary directory made for the page (never the repository root), with
  ``COLUMNS=100``, and the output shown under it must be what it prints (stdout and stderr as a
  terminal interleaves them; trailing spaces ignored; a line ``...`` stands for any lines, so
  ``...`` alone shows none of an output that differs by machine). ``$ cat FILE`` of a file the
  page has not made yet makes it, with the lines shown: that
  is how a page gives its input files. ``$ echo $?`` shows the previous command's exit status.
- a ```python block is executed; a ```pycon block is run as a doctest.
- a block with ``title="NAME"`` (```toml title="ranks.toml"```) is written to NAME in the page's
  directory before the blocks after it run.
- any other block (```text, ```sh, ```toml without a title) is shown, never run.
- a ``qmodel ...`` command in a table cell of the README (its question -> command table) runs after
  the README's blocks and must exit with status 0.

Update mode rewrites the shown outputs (and the numbers quoted in prose, docs/_hooks/quotes.py) in
place from the tool, for after a change of output, and
names on stderr every command whose new output is an ``error:`` the page did not show (a renamed
input, say): those want the command fixed, not the output::

    python tests/test_docs_examples.py --update [PAGE ...]
"""

from __future__ import annotations

import doctest
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_hooks"))  # docs/_hooks/pagework.py: the one reader of a page
from pagework import FENCE, Command, environment, parse, run  # noqa: E402


def pages() -> list[Path]:
    """README.md and every page of the site."""
    return [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_hooks" not in p.parts)]


def table_commands(lines: list[str]) -> list[tuple[int, str]]:
    """The ``qmodel ...`` commands in the cells of a table (the README's question -> command table):
    each must answer with exit status 0."""
    return [
        (index, command)
        for index, line in enumerate(lines)
        if line.startswith("|")
        for command in re.findall(r"`(qmodel [^`]+)`", line)
    ]


def _normal(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the shown output is what was printed; a shown line ``...`` matches any lines."""
    shown, printed = _normal(shown), _normal(printed)
    if "..." not in shown:
        return shown == printed
    pattern = "\n".join(".*?" if line == "..." else re.escape(line) for line in shown)
    return re.fullmatch(pattern, "\n".join(printed), re.DOTALL) is not None


@dataclass
class Problem:
    page: Path
    line: int
    what: str
    printed: list[str] = field(default_factory=list)


def run_page(page: Path) -> tuple[list[Problem], dict[int, tuple[Command, list[str]]]]:
    """Run every example of a page in a fresh directory: the problems, and what each command printed."""
    lines = page.read_text(encoding="utf-8").split("\n")
    problems: list[Problem] = []
    printed_by_line: dict[int, tuple[Command, list[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="qmodel-docs-") as folder:
        work = Path(folder) / "work"
        work.mkdir()
        env = environment(Path(folder) / "cache")
        status = 0
        namespace: dict = {"__name__": "__docs__"}  # the page's Python blocks share it, as one session
        for block in parse(lines):
            where = block.line + 1
            if block.title:
                (work / block.title).write_text("\n".join(block.body) + "\n", encoding="utf-8")
            if block.kind == "python":
                problems += _run_python(page, where, "\n".join(block.body), work, namespace)
            elif block.kind == "pycon":
                problems += _run_doctest(page, where, "\n".join(block.body), work, namespace)
            for command in block.commands:
                cat = re.fullmatch(r"cat (\S+)", command.text.strip())
                if cat and not (work / cat[1]).exists():
                    (work / cat[1]).write_text("\n".join(command.shown) + "\n", encoding="utf-8")
                if command.text.strip() == "echo $?":
                    printed = [str(status)]
                else:
                    done = run(command.text, work, env)
                    status, printed = done.returncode, done.stdout.split("\n")
                printed_by_line[command.line] = (command, printed)
                if "Traceback (most recent call last)" in "\n".join(printed):
                    problems.append(Problem(page, command.line + 1, f"{command.text}: a traceback", printed))
                elif not matches(command.shown, printed):
                    problems.append(
                        Problem(page, command.line + 1, f"{command.text}: output differs", printed)
                    )
        for line, text in table_commands(lines) if page.name == "README.md" else ():
            done = run(text, work, env)
            if done.returncode != 0:
                problems.append(
                    Problem(page, line + 1, f"{text}: exit status {done.returncode}", done.stdout.split("\n"))
                )
    return problems, printed_by_line


def _run_python(page: Path, where: int, source: str, work: Path, namespace: dict) -> list[Problem]:
    here = os.getcwd()
    os.chdir(work)
    try:
        exec(compile(source, f"{page.name}:{where}", "exec"), namespace)
    except Exception as error:  # any failure of an example is the finding
        return [Problem(page, where, f"python block: {type(error).__name__}: {error}")]
    finally:
        os.chdir(here)
    return []


def _run_doctest(page: Path, where: int, source: str, work: Path, namespace: dict) -> list[Problem]:
    here = os.getcwd()
    os.chdir(work)
    try:
        name = f"{page.name}:{where}"
        test = doctest.DocTestParser().get_doctest(source, namespace, name, str(page), where)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)  # a DocTest runs in a copy of the names it is given
    finally:
        os.chdir(here)
    return [Problem(page, where, "pycon block:\n" + "".join(report))] if runner.failures else []


def update(page: Path) -> int:
    """Rewrite the page's shown outputs that differ from what the commands print; the number rewritten."""
    problems, printed_by_line = run_page(page)
    lines = page.read_text(encoding="utf-8").split("\n")
    rewritten = 0
    for _, (command, printed) in sorted(printed_by_line.items(), reverse=True):
        if matches(command.shown, printed):
            continue
        if _errors(printed) - _errors(command.shown):  # an example that now fails is a finding, not an output
            print(
                f"{page.relative_to(ROOT)}:{command.line + 1}: {command.text}: now refused: "
                f"{sorted(_errors(printed) - _errors(command.shown))[0]}",
                file=sys.stderr,
            )
        indent = FENCE.match(lines[_fence_of(lines, command.line)])[1]
        lines[command.out_start : command.out_end] = [indent + line for line in _normal(printed)]
        rewritten += 1
    page.write_text("\n".join(lines), encoding="utf-8")
    for problem in problems:
        if "output differs" not in problem.what:
            print(f"{problem.page.relative_to(ROOT)}:{problem.line}: {problem.what}", file=sys.stderr)
    return rewritten


def _errors(lines: list[str]) -> set[str]:
    return {line for line in lines if line.startswith("error:")}


def _fence_of(lines: list[str], line: int) -> int:
    while not FENCE.match(lines[line]):
        line -= 1
    return line


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_runs_and_shows_what_it_prints(page: Path) -> None:
    problems, _ = run_page(page)
    report = "\n\n".join(
        f"{p.page.relative_to(ROOT)}:{p.line}: {p.what}\n" + "\n".join(p.printed[:40]) for p in problems
    )
    update = "python tests/test_docs_examples.py --update"
    assert not problems, f"{report}\n\n(after an intended change of output: {update})"


def test_the_readme_stays_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_a_console_block_is_split_into_commands_and_their_output() -> None:
    lines = ["```console", "$ cat a.csv", "x", "1", "$ qmodel calc mm1 \\", "  arrival_rate=1", "out", "```"]
    [block] = parse(lines)
    assert [c.text for c in block.commands] == ["cat a.csv", "qmodel calc mm1  arrival_rate=1"]
    assert block.commands[0].shown == ["x", "1"] and block.commands[1].shown == ["out"]
    assert matches(["a", "...", "z"], ["a", "b", "c", "z"]) and not matches(["a", "...", "z"], ["a", "b"])


if __name__ == "__main__":
    if sys.argv[1:2] != ["--update"]:
        sys.exit("usage: python tests/test_docs_examples.py --update [PAGE ...]")
    import quotes  # docs/_hooks/quotes.py: the numbers quoted in prose

    chosen = [Path(p).resolve() for p in sys.argv[2:]] or pages()
    for chosen_page in chosen:
        said = quotes.update(chosen_page)
        print(f"{chosen_page.relative_to(ROOT)}: {update(chosen_page)} outputs and {said} quotes rewritten")
