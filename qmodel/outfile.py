"""One writer for every file a command writes: whole or not at all, never over an input, one run at a time.

A target is claimed before any work (:func:`claim_output`): its folder must exist; it must not be a
folder, nor one of the run's inputs (the same file by device and inode, so also through a symbolic
or a hard link); and no other run may be writing it (an advisory lock, ``flock``, on a lock file
beside it, ``.NAME.qmodel-lock``: a second run is refused at once, naming the target). The output is
written to a temporary file beside the target (``.NAME.XXXXXXXX.qmodel-tmp``, on the same file system),
flushed, synced to the disk and renamed over the target only when it is complete (:meth:`Target.open`):
an interrupted or failed run leaves the previous file as it was and nothing partial under its name.
A target that is a symbolic link is written where the link points (the link stays); one that is no
regular file (``/dev/null``, a FIFO, a terminal) is written straight through.

``-`` is standard output, written through as it comes; its reader leaving early raises
BrokenPipeError, which the command line ends with the closed-pipe status (:mod:`qmodel.errors`),
never 0.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

from qmodel.errors import InputError

try:
    import fcntl
except ImportError:  # not POSIX: the lock file is created exclusively instead
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX, TEMP_SUFFIX = ".qmodel-lock", ".qmodel-tmp"


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path`` (``-``: standard input), following links; None where
    there is no such regular file."""
    try:
        found = os.fstat(0) if path == "-" else os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def check_output_path(option: str, path: str, inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse, before any work, an output file that cannot be written or would destroy an input: a
    folder, a file in a missing folder, or one of ``inputs`` (the same file by device and inode:
    through a symbolic or a hard link too). ``-`` (standard output) is always allowed."""
    if path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise InputError(option, path, "a file name", reason="it is a directory")
    folder = Path(os.path.realpath(target)).parent
    if not folder.is_dir():
        raise InputError(
            option,
            path,
            "a file in an existing directory",
            reason=f"directory {str(target.parent)!r} does not exist",
        )
    written = _identity(path)
    if written is None:
        return
    for source in inputs:
        source = os.fspath(source)
        if _identity(source) == written:
            name = "standard input" if source == "-" else source
            link = "" if source == path else ", the same file through a link"
            raise InputError(
                option,
                path,
                f"a file other than the input {name}: {option} OTHER-FILE",
                reason=f"it is the input {name}{link}; writing it would destroy it",
            )


class Target:
    """A claimed output: standard output, or a file written whole by :meth:`open` (see the module)."""

    def __init__(self, option: str, path: str) -> None:
        self.option, self.path = option, path
        self.final = path if path == "-" else os.path.realpath(path)
        self._release = None
        if path != "-" and self._regular_or_new():
            self._release = weakref.finalize(self, _unlock, *self._lock())

    def _regular_or_new(self) -> bool:
        try:
            return stat.S_ISREG(os.stat(self.final).st_mode)
        except FileNotFoundError:
            return True

    def _lock(self) -> tuple[int, str]:
        """(descriptor, path) of the lock file, held: refused where another run holds it."""
        folder, name = os.path.split(self.final)
        lock = os.path.join(folder, f".{name}{LOCK_SUFFIX}")
        while True:
            try:
                flags = os.O_RDWR | os.O_CREAT | (0 if fcntl else os.O_EXCL)
                descriptor = os.open(lock, flags, 0o644)
            except FileExistsError:
                raise self._busy(lock) from None
            except OSError as error:
                raise self.error(error) from None
            if fcntl is None:
                return descriptor, lock
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(descriptor)
                raise self._busy(lock) from None
            try:  # the lock file may have been removed by the run that held it: lock the one there now
                if os.stat(lock).st_ino == os.fstat(descriptor).st_ino:
                    return descriptor, lock
            except FileNotFoundError:
                pass
            os.close(descriptor)

    def _busy(self, lock: str) -> InputError:
        return InputError(
            self.option,
            self.path,
            f"a file no other run is writing: wait for that run, or {self.option} OTHER-FILE",
            reason=f"another qmodel run is writing it ({lock})",
        )

    def error(self, error: OSError) -> InputError:
        """A write that failed, as one line naming the option and the file."""
        return InputError(
            self.option, self.path, "a file that can be written", reason=error.strerror or str(error)
        )

    def release(self) -> None:
        """Give up the claim (the lock) without writing; done anyway when the target is collected."""
        if self._release is not None:
            self._release()

    @contextlib.contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """A binary file to write the whole output to: standard output as it comes; a file written to
        a temporary file beside the target and renamed into place when the block ends without an
        error (removed when it ends with one: the target keeps its previous content)."""
        if self.path == "-":
            sys.stdout.flush()
            yield sys.stdout.buffer
            sys.stdout.flush()
            return
        if self._release is None:  # no regular file (/dev/null, a FIFO, a terminal): straight through
            try:
                with open(self.final, "wb") as handle:
                    yield handle
            except OSError as error:
                raise self.error(error) from None
            return
        folder, name = os.path.split(self.final)
        try:
            descriptor, scratch = tempfile.mkstemp(prefix=f".{name}.", suffix=TEMP_SUFFIX, dir=folder)
        except OSError as error:
            raise self.error(error) from None
        try:
            with open(descriptor, "wb") as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(scratch, _mode_for(self.final))
            os.replace(scratch, self.final)
            _sync_folder(folder)
        except BaseException as error:
            with contextlib.suppress(OSError):
                os.unlink(scratch)
            if isinstance(error, OSError):
                raise self.error(error) from None
            raise
        finally:
            self.release()

    def write(self, data: bytes | Iterable[bytes]) -> None:
        """Write ``data`` (bytes, or pieces of it in order) whole, as :meth:`open` does."""
        with self.open() as handle:
            if isinstance(data, bytes | bytearray | memoryview):
                handle.write(data)
            else:
                for piece in data:
                    handle.write(piece)


def claim_output(option: str, path: str, inputs: Iterable[str | os.PathLike] = ()) -> Target:
    """The output ``path`` (``-``: standard output) of the option ``option`` checked
    (:func:`check_output_path`, against ``inputs``) and claimed against other runs, before any work."""
    inputs = list(inputs)
    check_output_path(option, path, inputs)
    return Target(option, path)


def _unlock(descriptor: int, lock: str) -> None:
    """Remove the lock file, then let go of it (removed first, so that no run locks a file going away)."""
    with contextlib.suppress(OSError):
        os.unlink(lock)
    with contextlib.suppress(OSError):
        os.close(descriptor)


def _mode_for(path: str) -> int:
    """The permissions a rewritten file keeps: the target's own, or a new file's under the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _sync_folder(folder: str) -> None:
    """The rename made durable: the folder's entry synced (where the system allows opening a folder)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder or ".", os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


class _WholeWrites(io.RawIOBase):
    """A file descriptor written whole: a short write (a pipe whose reader left, a signal) is written on
    until every byte is out or the system refuses with an error (BrokenPipeError)."""

    def __init__(self, descriptor: int) -> None:
        super().__init__()
        self.descriptor = descriptor

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.descriptor

    def isatty(self) -> bool:
        return os.isatty(self.descriptor)

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self.descriptor, view[done:])
        return done


def whole_writes(stream: TextIO) -> TextIO:
    """Standard output written whole: the same encoding and line buffering over :class:`_WholeWrites`.

    Python's buffered writer takes a short write of a large block (a pipe's reader gone after the first
    64 KiB) as done and drops the rest without an error, so a command whose reader left early would
    end with 0 having written a fraction; here the rest is written, and the closed pipe raises. A
    standard output that takes no Unicode (``LANG=C``) shows a character it lacks as ``\\u03bb``, never
    a traceback."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (captured by a test, a notebook): as it is
        return stream
    raw = io.BufferedWriter(_WholeWrites(descriptor), buffer_size=1 << 16)
    unicode = (stream.encoding or "").lower().replace("-", "").startswith("utf")
    errors = stream.errors if unicode else "backslashreplace"
    return io.TextIOWrapper(
        raw,
        encoding=stream.encoding,
        errors=errors,
        line_buffering=bool(stream.line_buffering),
        write_through=False,
    )
