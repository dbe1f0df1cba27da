"""Pictures drawn by the tool when the site is built: no committed image is shown.

A page asks for a picture with a comment naming the command that draws it and, on the lines after
it, the picture's description (its alternative text)::

    <!-- figure: qmodel scenario gdps-env3 --distance 0..100km --points 41 --plot env3.png
    Environment 3: each member's mean response time against distance, ...
    -->

The command runs as the page's examples run (``pagework``: a fresh directory holding the page's files,
``COLUMNS=100``), every figure of the site at once; the file it writes (the word after ``--plot``) is
added to the site beside the page, and the comment becomes the image. A command that fails or writes
no picture fails the build. ``tests/test_docs_truth.py`` draws each figure the same way and fails
when a page shows an image that is a file of the repository.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pagework import RUN_TIMEOUT, environment, page_files, parse

FIGURE = re.compile(r"<!-- figure: (?P<command>[^\n]*?)\s*\n(?P<alt>.*?)\s*-->", re.DOTALL)
PICTURE_SUFFIXES = (".png", ".svg")


class FigureError(Exception):
    """A figure's command failed or drew nothing."""


@dataclass(frozen=True)
class Figure:
    page: str  # the page's path in docs/ (howto/scenario.md)
    command: str
    alt: str

    @property
    def output(self) -> str:
        """The file the command writes: the word after ``--plot``."""
        named = re.search(r"--plot\s+(\S+)", self.command)
        if named is None or not named[1].endswith(PICTURE_SUFFIXES):
            raise FigureError(f"{self.page}: figure `{self.command}` writes no --plot FILE.png or .svg")
        return named[1]

    @property
    def site_name(self) -> str:
        """Its file in the site, beside the page: ``scenario-env3.png`` for howto/scenario.md."""
        return f"{Path(self.page).stem}-{self.output}"


def figures(page: str, text: str) -> list[Figure]:
    """The figures a page asks for."""
    return [Figure(page, m["command"].strip(), " ".join(m["alt"].split())) for m in FIGURE.finditer(text)]


def draw(drawn: list[tuple[Figure, str]]) -> dict[Figure, bytes]:
    """Each figure drawn by its command (with its page's text, for the page's files), all at once: the
    picture's bytes."""
    with tempfile.TemporaryDirectory(prefix="qmodel-figures-") as folder:
        running = []
        for index, (figure, text) in enumerate(drawn):
            work = Path(folder) / str(index)
            work.mkdir()
            for name, content in page_files(parse(text.split("\n"))).items():
                (work / name).write_text(content, encoding="utf-8")
            process = subprocess.Popen(
                ["bash", "-c", figure.command],
                cwd=work,
                text=True,
                env=environment(Path(folder) / "cache"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            running.append((figure, work, process))
        pictures = {}
        for figure, work, process in running:
            _, errors = process.communicate(timeout=RUN_TIMEOUT)
            picture = work / figure.output
            if not picture.is_file() or picture.stat().st_size == 0:
                raise FigureError(
                    f"{figure.page}: figure `{figure.command}` drew nothing "
                    f"(exit {process.returncode}): {errors.strip()[:300]}"
                )
            pictures[figure] = picture.read_bytes()
    return pictures


def on_files(files, config):
    """MkDocs event: every page's figures drawn and added to the site beside their pages."""
    from mkdocs.exceptions import PluginError  # the hook runs inside mkdocs only
    from mkdocs.structure.files import File

    wanted = [
        (figure, page.content_string)
        for page in files.documentation_pages()
        for figure in figures(page.src_uri, page.content_string)
    ]
    try:
        pictures = draw(wanted)
    except FigureError as error:
        raise PluginError(str(error)) from None
    for figure, picture in pictures.items():
        where = str(Path(figure.page).parent / figure.site_name).removeprefix("./")
        files.append(File.generated(config, where, content=picture))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: each figure's comment replaced by its picture."""

    def picture(m: re.Match) -> str:
        figure = Figure(page.file.src_uri, m["command"].strip(), " ".join(m["alt"].split()))
        return f"![{figure.alt}]({figure.site_name})"

    return FIGURE.sub(picture, markdown)
