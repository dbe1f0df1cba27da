"""A documentation page's fenced blocks, the files it makes, and the commands it runs.

One home for how a page is read (docs/contributing/docs.md): the example tests
(``tests/test_docs_examples.py``), the checked quotes (``quotes.py``) and the figures drawn at build
time (``figures.py``) all read a page here, and run its commands in the same environment: a fresh
directory holding the page's files, ``COLUMNS=100``, no colour, the Python that runs the build.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

COLUMNS = 100
FENCE = re.compile(r"^(\s*)```(\w*)(.*)$")
TITLE = re.compile(r'title="([^"]+)"')
RUN_TIMEOUT = 300


@dataclass
class Command:
    line: int  # index of its ``$`` line in the page
    text: str  # the command, continuation lines joined
    out_start: int  # indices of its shown output lines: [out_start, out_end)
    out_end: int
    shown: list[str]


@dataclass
class Block:
    kind: str
    line: int  # index of the fence line
    body: list[str]
    title: str = ""
    commands: list[Command] = field(default_factory=list)


def parse(lines: list[str]) -> list[Block]:
    """The fenced blocks of a page, console blocks split into commands and their shown output."""
    blocks, index = [], 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        if not opened:
            index += 1
            continue
        indent, kind, info = opened.groups()
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = [line[len(indent) :] if line.startswith(indent) else line for line in lines[index + 1 : end]]
        title = TITLE.search(info)
        block = Block(kind, index, body, title[1] if title else "")
        if kind == "console":
            block.commands = _commands(body, index + 1)
        blocks.append(block)
        index = end + 1
    return blocks


def _commands(body: list[str], first: int) -> list[Command]:
    commands: list[Command] = []
    at = 0
    while at < len(body):
        if not body[at].startswith("$ "):
            at += 1
            continue
        start, text = at, body[at][2:]
        while text.endswith("\\") and at + 1 < len(body):
            at += 1
            text = text[:-1] + " " + body[at].strip()
        out_start = at + 1
        at = out_start
        while at < len(body) and not body[at].startswith("$ "):
            at += 1
        commands.append(Command(first + start, text, first + out_start, first + at, body[out_start:at]))
    return commands


def page_files(blocks: list[Block]) -> dict[str, str]:
    """The files a page makes, by name: each titled block, and each ``$ cat FILE`` whose lines it shows
    (the first time it shows FILE; later ones show what a command wrote)."""
    files: dict[str, str] = {}
    written: set[str] = set()
    for block in blocks:
        if block.title:
            files[block.title] = "\n".join(block.body) + "\n"
        for command in block.commands:
            cat = re.fullmatch(r"cat (\S+)", command.text.strip())
            if cat and cat[1] not in files and cat[1] not in written:
                files[cat[1]] = "\n".join(command.shown) + "\n"
            written.update(re.findall(r"(?:-o|>)\s*(\S+)", command.text))
    return files


def environment(cache: Path) -> dict[str, str]:
    """The environment a page's commands run in: 100 columns, no colour, this Python's qmodel first."""
    env = dict(os.environ)
    env.update(
        COLUMNS=str(COLUMNS),
        LINES="50",
        PYTHONUNBUFFERED="1",
        TERM="dumb",
        NO_COLOR="1",
        XDG_CACHE_HOME=str(cache),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
    )
    env.pop("QMODEL_CATALOGUE", None)
    return env


def run(command: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``command`` run by bash in ``work``: stdout and stderr interleaved, as a terminal shows them."""
    return subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=RUN_TIMEOUT,
    )
