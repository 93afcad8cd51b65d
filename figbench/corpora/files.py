"""Corpus files: where each comes from (:class:`RemoteFile`), and one way to get them (:func:`resolve`).

A builder (or ``figbench data fetch``) names the files it needs as :class:`RemoteFile` s. :func:`resolve`
returns their paths under the corpus folder; a missing file is downloaded there and its sha256
checked when downloads are allowed (not offline), and otherwise one :class:`MissingDataError` lists
every missing file with where it was looked for, the variable or option to set, and its URL.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from figbench.paths import DATA_DIR_ENV, data_dir_source

#: Seconds before a download without progress is given up.
DOWNLOAD_TIMEOUT_S = float(os.environ.get("FIGBENCH_DOWNLOAD_TIMEOUT", "60"))
_OFFLINE_VARS = ("FIGBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


class MissingDataError(FileNotFoundError):
    """Files of a corpus are missing; the message lists each with where it was looked for and its URL.

    ``reason`` (when set) says why they were not downloaded, e.g. the network error of a failed download.
    """

    reason: str = ""


class ChecksumError(ValueError):
    """A file does not have the recorded sha256; the message names the corpus, file and source."""


@dataclass(frozen=True)
class RemoteFile:
    """One file or folder of a corpus.

    ``path`` is relative to the corpus folder. ``url`` is its public source (``""`` for a file with no public
    download: ``description`` then says how to obtain it); ``sha256`` that of the
    downloaded bytes (None where no copy was available to compute it: the card says so). With
    ``extract`` the download is a zip or tar archive that, unpacked into the corpus folder, creates
    ``path``.
    """

    path: str
    url: str
    sha256: str | None = None
    extract: bool = False
    description: str = ""


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: str | os.PathLike, expected: str | None, *, corpus: str, label: str = "") -> str:
    """Return the file's sha256; raise :class:`ChecksumError` when it is not ``expected`` (None: no check)."""
    actual = sha256_file(path)
    if expected is not None and actual != expected:
        raise ChecksumError(
            f"{corpus}: checksum mismatch for {label or Path(path).name} ({path}): expected sha256 {expected}, "
            f"got {actual}; the download is corrupt or the original file changed")
    return actual


def offline_variables() -> list[str]:
    """The variables among ``FIGBENCH_OFFLINE``, ``HF_HUB_OFFLINE``, ``HF_DATASETS_OFFLINE`` set to a true value."""
    return [v for v in _OFFLINE_VARS if os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on")]


def downloads_allowed() -> bool:
    """False when ``FIGBENCH_OFFLINE``, ``HF_HUB_OFFLINE`` or ``HF_DATASETS_OFFLINE`` is set to a true value."""
    return not offline_variables()


def offline_reason() -> str:
    """Why nothing was downloaded, for messages: the offline variables that are set."""
    return (f"Not downloaded: offline mode ({', '.join(offline_variables())} is set; unset it to allow "
            "downloads).")


def missing(root: Path, files: Iterable[RemoteFile]) -> list[RemoteFile]:
    return [f for f in files if not (root / f.path).exists()]


#: more missing files than this are summarised: the first LISTED_FIRST, then one line for the rest
LISTED_MAX = 5
LISTED_FIRST = 3
#: names of the rest shown on the summary line
LISTED_MORE_NAMES = 10


def _listing(root: Path, files: Sequence[RemoteFile]) -> list[str]:
    """One line per file, its URL on the next line once per run of consecutive files from the same URL; more
    than :data:`LISTED_MAX` files: the first :data:`LISTED_FIRST` so, then one line counting and naming the rest."""
    shown = files if len(files) <= LISTED_MAX else files[:LISTED_FIRST]
    rest = files[len(shown):]
    lines: list[str] = []
    for i, f in enumerate(shown):
        lines.append(f"  - {root / f.path}")
        following = shown[i + 1] if i + 1 < len(shown) else (rest[0] if rest else None)
        if not f.url:
            lines.append(f"    (no public URL: {f.description or 'obtain it from the corpus authors'})")
        elif following is None or following.url != f.url:
            lines.append(f"    (from {f.url})")
    if rest:
        names = [f.path for f in rest]
        more = ", ".join(names[:LISTED_MORE_NAMES]) + (", ..." if len(names) > LISTED_MORE_NAMES else "")
        urls = list(dict.fromkeys(f.url for f in rest if f.url))
        lines.append(f"  - ... and {len(rest)} more in {root}: {more}")
        if len(urls) == 1:
            lines.append(f"    (from {urls[0]})")
        elif urls:
            lines.append(f"    (from {len(urls)} URLs, the first {urls[0]})")
    return lines


def missing_message(corpus: str, root: Path, files: Sequence[RemoteFile], *, data_dir: str | None = None,
                    reason: str = "", hint: str = "") -> str:
    """The text of a :class:`MissingDataError`: corpus, folder, files with URLs, what to set."""
    lines = "\n".join(_listing(root, files))
    text = (f"{corpus}: {len(files)} required file(s) not found in the {corpus} folder {root} "
            f"(chosen by {data_dir_source(data_dir)}):\n{lines}\n")
    if reason:
        text += f"{reason}\n"
    text += (f"To fix it: run `figbench data fetch {corpus}` where the network allows (it downloads these files "
             f"there and checks their sha256), or download them by hand into that folder; or point "
             f"{DATA_DIR_ENV} at a folder with a '{corpus}' sub-folder, or pass data_dir= (--data-dir) the "
             f"{corpus} folder itself.")
    return text + (f"\n{hint}" if hint else "")


def _download(url: str, target: Path) -> None:
    """Stream ``url`` to ``target`` (through a temporary file, renamed when complete).

    Each download builds its own opener, so it reads the proxy variables as they are now and leaves
    ``urllib.request.urlopen``'s process-wide opener alone (that one keeps the proxies of its first use)."""
    import shutil
    import tempfile
    import urllib.request

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.build_opener().open(url, timeout=DOWNLOAD_TIMEOUT_S) as resp:
            shutil.copyfileobj(resp, out, 1 << 20)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _extract(archive: Path, root: Path, *, corpus: str, url: str) -> None:
    """Unpack a zip or tar archive into ``root``, refusing members that would land outside it.

    Raises ValueError naming the corpus, the URL and the member at fault (not an archive, a corrupt
    archive, a member outside ``root``)."""
    import tarfile
    import zipfile

    root = root.resolve()
    where = f"{corpus}: the archive downloaded from {url}"
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                for name in z.namelist():
                    if not (root / name).resolve().is_relative_to(root):
                        raise ValueError(f"{where}: member {name!r} would be written outside {root}; nothing unpacked")
                z.extractall(root)
            return
        with tarfile.open(archive) as t:
            t.extractall(root, filter="data")
    except (zipfile.BadZipFile, tarfile.ReadError, EOFError) as e:
        raise ValueError(f"{where} is not a readable zip or tar archive ({type(e).__name__}: {e})") from None
    except tarfile.FilterError as e:
        raise ValueError(f"{where}: {e}; unpacking stopped") from None


def fetch(corpus: str, root: Path, files: Iterable[RemoteFile], *, force: bool = False,
          data_dir: str | None = None) -> list[Path]:
    """Download ``files`` into ``root`` (each checked against its sha256); returns the paths fetched.

    Files already present are kept unless ``force``. A failed download raises :class:`MissingDataError`
    naming the file, its URL and the network error; a file with the wrong sha256 raises
    :class:`ChecksumError`. Nothing partial or corrupt is left behind: a download is checked under a
    temporary name and only then moved (or unpacked) into place.
    """
    root = Path(root)
    wanted = list(files) if force else missing(root, files)
    done: list[Path] = []
    unpacked: set[str] = set()   # archives already downloaded and unpacked in this call
    for f in wanted:
        dest = root / f.path
        if not (f.extract and f.url in unpacked):
            _fetch_one(corpus, root, f, data_dir=data_dir)
            if f.extract:
                unpacked.add(f.url)
        if f.extract and not dest.exists():
            raise MissingDataError(f"{corpus}: {f.url} unpacked into {root} without creating {f.path}")
        done.append(dest)
    return done


def _fetch_one(corpus: str, root: Path, f: RemoteFile, *, data_dir: str | None) -> None:
    """Download ``f``, check its sha256 under a temporary name, then move it into place (or unpack it)."""
    if not f.url:
        reason = f"No public URL to download {f.path} from: place it in the folder by hand."
        err = MissingDataError(missing_message(corpus, root, [f], data_dir=data_dir, reason=reason))
        err.reason = reason
        raise err
    name = Path(f.url.split("?", 1)[0]).name or Path(f.path).name
    dest = root / f.path
    part = root / f".download-{name}" if f.extract else dest.parent / f".download-{dest.name}"
    try:
        _download(f.url, part)
    except (OSError, ValueError) as e:  # urllib.error.URLError is an OSError
        why = getattr(e, "reason", None) or e
        reason = f"Downloading {f.url} failed: {type(e).__name__}: {why}."
        err = MissingDataError(missing_message(corpus, root, [f], data_dir=data_dir, reason=reason))
        err.reason = reason
        raise err from None
    try:
        verify_sha256(part, f.sha256, corpus=corpus, label=f"{f.path} (from {f.url})")
        if f.extract:
            _extract(part, root, corpus=corpus, url=f.url)
        else:
            os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)


def resolve(corpus: str, root: Path, files: Sequence[RemoteFile], *, data_dir: str | None = None,
            download: bool | None = None, hint: str = "") -> dict[str, Path]:
    """Paths of ``files`` under ``root`` (keyed by ``RemoteFile.path``), downloading missing ones when allowed.

    ``download=None`` downloads when :func:`downloads_allowed`. Raises one :class:`MissingDataError`
    listing every file that is still missing.
    """
    root = Path(root)
    absent = missing(root, files)
    if absent:
        allowed = downloads_allowed() if download is None else download
        if not allowed:
            reason = (offline_reason() if download is None
                      else "Not downloaded (downloads are off for this call).")
            err = MissingDataError(missing_message(corpus, root, absent, data_dir=data_dir, reason=reason, hint=hint))
            err.reason = reason
            raise err
        try:
            fetch(corpus, root, absent, data_dir=data_dir)
        except MissingDataError as e:  # name every file still missing, not only the one that failed
            still = missing(root, files) or absent
            err = MissingDataError(missing_message(corpus, root, still, data_dir=data_dir, reason=e.reason, hint=hint))
            err.reason = e.reason
            raise err from None
    return {f.path: root / f.path for f in files}
