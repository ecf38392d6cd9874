"""Host-side file access inside a folder that sandboxed code could change: a work copy.

Between two runs the host writes into a work copy (the next task's patched file, the original
bytes put back). Everything in the copy may have been replaced by the code that just ran: a
source file by a symbolic link to a host file, a folder by a link to ``/``, a file by a FIFO that
blocks whoever opens it. A plain ``open(root / path, "w")`` follows all of that, out of the
sandbox, with the rights of the user running simpilot.

So every access here walks the path one component at a time from a descriptor of the root,
with ``O_NOFOLLOW`` on each (``openat``), and refuses anything but real folders and a regular
file with one link. A refusal is :class:`Escape`: the caller rebuilds the copy rather than
repair it. :func:`tree_state` is the record of a whole tree, links, folders, modes and caches
included, that tells whether a run changed anything at all.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePosixPath

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Escape(OSError):
    """A path in the copy is not what the copy had: a link, a special file, a folder swapped."""


def _parts(relative: str) -> list[str]:
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or any(p in ("..", ".", "") for p in parts):
        raise Escape(f"{relative!r} is not a plain path inside the copy")
    return list(parts)


@contextmanager
def _parent(root: str, relative: str) -> Iterator[tuple[int, str]]:
    """A descriptor of ``relative``'s folder, reached without following any link, and the
    file's name in it."""
    *folders, name = _parts(relative)
    try:
        fd = os.open(root, _DIRECTORY)
    except OSError as exc:
        raise Escape(f"the copy's root {root} cannot be opened as a folder ({exc.strerror})") from None
    try:
        for folder in folders:
            try:
                inner = os.open(folder, _DIRECTORY, dir_fd=fd)
            except OSError as exc:
                raise Escape(f"{relative}: {folder!r} is not a folder of the copy ({exc.strerror})") from None
            os.close(fd)
            fd = inner
        yield fd, name
    finally:
        os.close(fd)


def _regular(fd: int, relative: str, inode: int | None) -> os.stat_result:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        raise Escape(f"{relative} is no longer a regular file with one link")
    if inode is not None and st.st_ino != inode:
        raise Escape(f"{relative} was replaced by another file")
    return st


@contextmanager
def _file(root: str, relative: str, flags: int, inode: int | None = None) -> Iterator[tuple[int, os.stat_result]]:
    """A descriptor of the regular file ``relative`` below ``root`` (opened with ``flags``),
    reached without following any link; with ``inode``, only if the file is still that one."""
    with _parent(root, relative) as (folder, name):
        try:
            fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
        except OSError as exc:
            raise Escape(f"{relative} cannot be opened as a file of the copy ({exc.strerror})") from None
        try:
            yield fd, _regular(fd, relative, inode)
        finally:
            os.close(fd)


def write_file(
    root: str, relative: str, content: bytes, inode: int | None = None, times_ns: tuple[int, int] | None = None
) -> os.stat_result:
    """Replace the bytes of the existing regular file ``relative`` below ``root`` with
    ``content`` (and its access and modification times with ``times_ns``), never through a link;
    with ``inode``, only if the file is still that one. Returns the file's state afterwards."""
    with _file(root, relative, os.O_WRONLY, inode) as (fd, _):
        os.ftruncate(fd, 0)
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
        if times_ns is not None:
            os.utime(fd, ns=times_ns)
        return os.fstat(fd)


Entry = tuple[int | str, ...]


def identity(st: os.stat_result) -> tuple[int, ...]:
    """What says a file is unchanged: its type and mode, owner, link count, size and times. Size
    and modification time can be forged with ``os.utime``; the inode and the change time (set by
    the kernel on every write or metadata change) cannot."""
    return (st.st_mode, st.st_uid, st.st_nlink, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def tree_state(root: str) -> dict[str, Entry]:
    """Every entry below ``root`` by relative path, nothing followed and nothing left out (byte-code
    caches, compiler outputs, hidden folders): a regular file by :func:`identity`, a folder by
    its type, mode, owner and inode (not its times: a file made and removed again leaves no
    trace worth a rebuild), a link by its identity and target, anything else by its identity."""
    state: dict[str, Entry] = {}
    stack = [""]
    while stack:
        prefix = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, prefix) if prefix else root))
        except OSError as exc:
            state[prefix or "."] = (-1, exc.errno or 0)
            continue
        for entry in entries:
            relative = f"{prefix}/{entry.name}" if prefix else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                state[relative] = (-1, exc.errno or 0)
                continue
            if stat.S_ISDIR(st.st_mode):
                state[relative] = (st.st_mode, st.st_uid, st.st_ino)
                stack.append(relative)
            elif stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(entry.path)
                except OSError:
                    target = ""
                state[relative] = (st.st_mode, st.st_ino, st.st_ctime_ns, target)
            else:
                state[relative] = identity(st)
    return state
