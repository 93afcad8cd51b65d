"""The wheel of the figbench that is running, for folders that must install exactly this version offline
(``figbench leaderboard space``).

Three cases, by how figbench was installed (its ``direct_url.json``, PEP 610):

* from a wheel file that is still there: that file;
* from a source folder (editable or not): a wheel built from that folder with ``python -m build``
  (no build isolation when setuptools is importable, so it works offline);
* otherwise (from an index, or the wheel file is gone): the installed files repacked as a wheel,
  from the distribution's ``RECORD`` (what the wheel installed, less byte code and installer files).
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

DIST = "figbench"
#: files an installer adds to ``*.dist-info`` that are not part of the wheel (PEP 376, PEP 610, PEP 627)
_INSTALLER_FILES = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


def _direct_url(dist: metadata.Distribution) -> dict:
    text = dist.read_text("direct_url.json")
    return json.loads(text) if text else {}


def _local_path(url: str) -> Path | None:
    parsed = urlparse(url)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def installed_distribution() -> metadata.Distribution:
    """The installed figbench's metadata (``*.dist-info`` with ``RECORD``), not a source checkout's
    ``figbench.egg-info`` that a current directory on ``sys.path`` shows first."""
    found = list(metadata.distributions(name=DIST))
    for dist in found:
        if dist.read_text("RECORD") is not None:
            return dist
    return found[0] if found else metadata.distribution(DIST)


def wheel_of_running(folder: str | Path) -> Path:
    """Put a wheel of the running figbench version into ``folder``; return its path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    dist = installed_distribution()
    info = _direct_url(dist)
    source = _local_path(info.get("url", ""))
    if source is not None and "archive_info" in info and source.suffix == ".whl" and source.is_file():
        target = folder / source.name
        if source.resolve() != target.resolve():
            shutil.copyfile(source, target)
        return target
    if source is not None and "dir_info" in info and (source / "pyproject.toml").is_file():
        return build_wheel(source, folder)
    return repack_installed(dist, folder)


#: never copied when building from a source folder: VCS data, environments, build output, caches
_NOT_SOURCE = (".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".figbench",
               ".ruff_cache", ".pytest_cache", ".mypy_cache", "node_modules", "runs", "models", "out")


def build_wheel(source: Path, folder: Path) -> Path:
    """``python -m build --wheel`` of a copy of ``source`` (so nothing is written into the source folder),
    into ``folder``; without build isolation when setuptools is importable (offline)."""
    import importlib.util
    import tempfile

    if importlib.util.find_spec("build") is None:
        raise ImportError(f"figbench runs from the source folder {source}; building its wheel needs the `build` "
                          "package (pip install build), or pass --wheel FILE")
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-isolation", "--skip-dependency-check"]
    with tempfile.TemporaryDirectory(prefix="figbench-wheel-") as tmp:
        src, out_dir = Path(tmp) / "src", Path(tmp) / "dist"
        shutil.copytree(source, src, ignore=shutil.ignore_patterns(*_NOT_SOURCE), symlinks=True)
        out = subprocess.run([sys.executable, "-m", "build", "--wheel", *isolation, "--outdir", str(out_dir), str(src)],
                             capture_output=True, text=True)
        built = sorted(out_dir.glob(f"{DIST}-*.whl"))
        if out.returncode != 0 or not built:
            raise ValueError(f"building the figbench wheel from {source} failed:\n"
                             f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
        target = folder / built[0].name
        shutil.copyfile(built[0], target)
    return target


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack_installed(dist: metadata.Distribution, folder: Path) -> Path:
    """A wheel of the installed files of ``dist`` (its ``RECORD``, less byte code, scripts and installer files)."""
    files = dist.files or []
    wheel_meta = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:")]
    if not files or not tags:
        raise FileNotFoundError(f"{dist._path}: no RECORD or WHEEL file, so the installed figbench "  # type: ignore[attr-defined]
                                "cannot be repacked as a wheel; pass --wheel FILE")
    name = dist.metadata["Name"].replace("-", "_")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}-{dist.version}-{tags[0]}.whl"
    record_name = ""
    rows = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as whl:
        for f in sorted(files, key=str):
            arc = f.as_posix()
            parts = Path(arc).parts
            if arc.startswith("..") or "__pycache__" in parts or arc.endswith(".pyc"):
                continue
            if parts[0].endswith(".dist-info") and parts[-1] in _INSTALLER_FILES:
                if parts[-1] == "RECORD":
                    record_name = arc
                continue
            data = Path(dist.locate_file(f)).read_bytes()
            whl.writestr(arc, data)
            rows.append(f"{arc},{_record_hash(data)},{len(data)}")
        rows.append(f"{record_name},,")
        whl.writestr(record_name, "\n".join(rows) + "\n")
    return target
