"""Atomic file replacement: write to a temporary file in the target's folder, flush to
disk, then ``os.replace`` it over the target, so a reader (or a killed run) only ever sees
the old or the new complete file."""
import os
import tempfile
from pathlib import Path


def atomic_write(path, write, binary=False):
    """Replace ``path`` with what ``write(fh)`` writes into an open temporary file (text
    mode, UTF-8, or binary with ``binary=True``). On any error the target is untouched and
    the temporary file removed."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text):
    """Replace ``path`` atomically with the string ``text``."""
    atomic_write(path, lambda fh: fh.write(text))
