"""Small readers shared by the harvesters: list files (one entry a line, TAB-separated fields)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from figbench.harvest.wikitext import template_name


def packaged(name: str) -> Path:
    """A data file shipped in the wheel (``figbench/harvest/data/<name>``)."""
    return Path(str(resources.files("figbench.harvest") / "data" / name))


def read_mapping(path: str | Path, *, labels: tuple[str, ...] | None = None, what: str = "list") -> dict[str, str]:
    """``name<TAB>LABEL`` lines (``#`` comments, blank lines skipped) as {normalized name: label}.

    A line without a label maps to ``""``; a label outside ``labels`` raises naming the file and line.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} file {path} does not exist")
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, _, label = line.partition("\t")
            name, label = template_name(name.removeprefix("Infobox").removeprefix("infobox")), label.strip()
            if labels is not None and label and label not in labels:
                raise ValueError(f"{path}: line {lineno}: unknown label {label!r} "
                                 f"(expected one of {', '.join(labels)})")
            out[name] = label
    if not out:
        raise ValueError(f"{path}: the {what} is empty")
    return out


def dump_info(parts, stats: list[dict], latest: str) -> dict:
    """Name, date and size of a dump for the card: the date from the file name, else the newest revision."""
    from figbench.harvest.dump import dump_date, site_name

    files = list(dict.fromkeys(Path(p.path).name for p in parts))
    date = dump_date(files[0])
    return {"dbname": readable(parts, site_name), "files": files, "partitions": len(parts),
            "pages": sum(s.get("pages", 0) for s in stats),
            "date": date or (latest[:10] if latest else "unknown"),
            "date_source": "file name" if date else "newest revision timestamp in the dump"}


def namespaces(part) -> tuple[str, ...]:
    """Names of the dump's non-article namespaces (from its siteinfo), lower case."""
    import mwxml

    from figbench.harvest.dump import open_partition

    stream = open_partition(part)
    try:
        info = mwxml.Dump.from_file(stream).site_info
        out = []
        for ns in info.namespaces or ():
            if ns.id != 0 and ns.name:
                out.append(ns.name.lower())
        return tuple(out)
    finally:
        stream.close()


def readable(parts, read):
    """``read(part)`` of the first partition whose header can be read (a dump whose first file is unreadable may
    still be harvested with ``--on-error skip``); the first partition's error when none can."""
    from figbench.harvest.dump import DumpError

    first = None
    for part in parts:
        try:
            return read(part)
        except DumpError as e:
            first = first or e
    raise first
