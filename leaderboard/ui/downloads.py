"""The overview's CSV/JSON downloads: one private folder per server process, cleaned up at exit and by the next
start after a kill."""

import os
import shutil
import tempfile
import threading
import time
import weakref
from pathlib import Path

DOWNLOADS_PREFIX = "figbench-lb-downloads-"


class Downloads:
    """CSV/JSON downloads in one private folder ``figbench-lb-downloads-<pid>-*`` in the temporary directory:
    made at the first download (a server nobody downloads from leaves nothing), removed at exit, and removed
    by the next start when its process was killed; files older than ``max_age_s`` are removed."""

    def __init__(self, max_age_s: float = 600) -> None:
        self.max_age_s = max_age_s
        self._folder: Path | None = None
        self._lock = threading.Lock()
        remove_stale_downloads()

    @property
    def folder(self) -> Path:
        with self._lock:
            if self._folder is None:
                self._folder = Path(tempfile.mkdtemp(prefix=f"{DOWNLOADS_PREFIX}{os.getpid()}-"))
                weakref.finalize(self, shutil.rmtree, str(self._folder), True)   # also at interpreter exit
            return self._folder

    def path(self, suffix: str) -> Path:
        folder = self.folder
        now = time.time()
        for old in folder.glob("*"):
            if now - old.stat().st_mtime > self.max_age_s:
                old.unlink(missing_ok=True)
        return Path(tempfile.mkstemp(prefix="figbench_leaderboard_", suffix=suffix, dir=folder)[1])


def remove_stale_downloads(tmp: str | os.PathLike | None = None) -> int:
    """Remove the download folders of servers on this machine whose process is gone (killed before their exit
    handlers ran); returns how many."""
    n = 0
    for folder in Path(tmp or tempfile.gettempdir()).glob(f"{DOWNLOADS_PREFIX}*"):
        pid = folder.name[len(DOWNLOADS_PREFIX):].split("-", 1)[0]
        if not (pid.isdigit() and folder.is_dir()) or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue   # alive (or not ours to signal)
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        n += 1
    return n
