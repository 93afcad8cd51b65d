"""Read CoNLL-2011/2012 coreference key/response files (the reference scorer's input format).

A file holds one or more ``#begin document NAME`` ... ``#end document`` blocks; each non-empty line
inside is a token whose last (whitespace-separated) column holds the coreference annotation, e.g.
``(12``, ``12)``, ``(12)``, ``(3|(12)`` or ``-``. Tokens are numbered from 0 within a document across
sentences (blank lines are skipped), as the reference scorer does; a mention is identified by its
first and last token, and gets the id ``"NAME:START-END"``. Nested and multi-token mentions are
supported; the annotation of one line is read as the scorer reads it (single-token mentions, then
openings, then closings), and ``(N+M)`` double antecedents are discarded as the scorer does.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from figbench.schema import Document

_BEGIN = re.compile(r"^#\s*begin document (.*?)$")
_END = re.compile(r"#\s*end document")
_DOUBLE = re.compile(r"\((\d+\+\d)\)")
_SINGLE = re.compile(r"\((\d+)\)")
_OPEN = re.compile(r"\((\d+)")
_CLOSE = re.compile(r"(\d+)\)")
_LEFTOVER = re.compile(r"^[\s|_\-]*$")


def mention_id(doc_name: str, start: int, end: int) -> str:
    """The id of the mention spanning tokens ``start``..``end`` (inclusive) of a document."""
    return f"{doc_name}:{start}-{end}"


def _looks_like_path(value: str | os.PathLike) -> bool:
    if isinstance(value, os.PathLike):
        return True
    return "\n" not in value and "#begin document" not in value and len(value) < 4096


def read_conll(path_or_text: str | os.PathLike) -> dict[str, Document]:
    """Parse a CoNLL coreference file (a path, or the file's text) into ``{document name: clusters}``.

    Clusters are in order of first appearance of their entity number; mentions in order of their
    closing token. Raises ``ValueError`` naming the source, document and line for unbalanced
    brackets, unreadable annotations, nested or unterminated documents, duplicate document names and
    the same mention annotated twice.
    """
    if _looks_like_path(path_or_text):
        path = Path(path_or_text)
        if not path.is_file():
            raise FileNotFoundError(f"CoNLL file not found: {path}")
        source = str(path)
        text = path.read_text(encoding="utf-8")
    else:
        source, text = "<text>", str(path_or_text)

    docs: dict[str, Document] = {}
    name: str | None = None
    begin_line = 0
    entities: dict[str, list[tuple[int, int, int]]] = {}  # entity -> (start, end, line)
    open_at: dict[str, list[tuple[int, int]]] = {}
    token = 0

    def where(lineno: int) -> str:
        return f"{source}, document {name!r}, line {lineno}"

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        begin = _BEGIN.match(line)
        if begin:
            if name is not None:
                raise ValueError(f"{where(lineno)}: '#begin document' inside a document that began on line "
                                 f"{begin_line} (missing '#end document')")
            name = begin.group(1)
            if name in docs:
                raise ValueError(f"{source}, line {lineno}: document {name!r} appears twice")
            begin_line, entities, open_at, token = lineno, {}, {}, 0
            continue
        if name is None:
            continue  # text outside documents is ignored, as by the reference scorer
        if _END.search(line):
            unclosed = [(e, ln) for e, stack in open_at.items() for _, ln in stack]
            if unclosed:
                e, ln = unclosed[0]
                raise ValueError(f"{where(ln)}: mention of entity {e} opened here is never closed "
                                 f"(unbalanced brackets; document ends on line {lineno})")
            docs[name] = _clusters(name, entities, where)
            name = None
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cinfo = line.split()[-1]
        if cinfo not in ("_", "-"):
            _read_annotation(cinfo, token, lineno, entities, open_at, where)
        token += 1
    if name is not None:
        raise ValueError(f"{source}, document {name!r} (begins on line {begin_line}): no '#end document'")
    return docs


def _read_annotation(cinfo: str, token: int, lineno: int, entities: dict[str, list[tuple[int, int, int]]],
                     open_at: dict[str, list[tuple[int, int]]], where) -> None:
    """Add the mentions that one token's coreference column opens, closes or holds whole."""
    rest = _DOUBLE.sub("", cinfo)
    for e in _SINGLE.findall(rest):
        entities.setdefault(e, []).append((token, token, lineno))
    rest = _SINGLE.sub("", rest)
    for e in _OPEN.findall(rest):
        entities.setdefault(e, [])
        open_at.setdefault(e, []).append((token, lineno))
    rest = _OPEN.sub("", rest)
    for e in _CLOSE.findall(rest):
        stack = open_at.get(e)
        if not stack:
            raise ValueError(f"{where(lineno)}: entity {e} closes a mention that was never opened "
                             f"(unbalanced brackets in {cinfo!r})")
        start, _ = stack.pop()
        entities[e].append((start, token, lineno))
    rest = _CLOSE.sub("", rest)
    if not _LEFTOVER.match(rest):
        raise ValueError(f"{where(lineno)}: cannot read coreference annotation {cinfo!r}")


def _clusters(name: str, entities: dict[str, list[tuple[int, int, int]]], where) -> Document:
    seen: dict[tuple[int, int], tuple[str, int]] = {}
    out: Document = []
    for e, spans in entities.items():
        for start, end, lineno in spans:
            if (start, end) in seen:
                other, other_line = seen[(start, end)]
                raise ValueError(f"{where(lineno)}: mention {start}-{end} is annotated twice (entity {other} "
                                 f"on line {other_line}, entity {e} here); duplicate mentions are an input error")
            seen[(start, end)] = (e, lineno)
        if spans:
            out.append([mention_id(name, s, t) for s, t, _ in spans])
    return out


def aligned_documents(key: dict[str, Document], response: dict[str, Document], *, key_source: str = "key",
                      response_source: str = "response") -> tuple[list[str], list[Document], list[Document]]:
    """Pair key and response documents by name (key order); a document on one side only is an error."""
    only_key = [n for n in key if n not in response]
    only_resp = [n for n in response if n not in key]
    if only_key or only_resp:
        parts = []
        if only_key:
            parts.append(f"in {key_source} only: {', '.join(repr(n) for n in only_key[:5])}"
                         + (f" and {len(only_key) - 5} more" if len(only_key) > 5 else ""))
        if only_resp:
            parts.append(f"in {response_source} only: {', '.join(repr(n) for n in only_resp[:5])}"
                         + (f" and {len(only_resp) - 5} more" if len(only_resp) > 5 else ""))
        raise ValueError("documents present on one side only: " + "; ".join(parts))
    names = list(key)
    return names, [response[n] for n in names], [key[n] for n in names]


def score_conll(key_path: str | os.PathLike, response_path: str | os.PathLike, *, remove_singletons: bool = False,
                per_document: bool = False) -> dict:
    """Score a CoNLL response file against a key file (all metrics of :func:`evaluate_coref`)."""
    from figbench.scoring.coref import evaluate_coref

    key = read_conll(key_path)
    response = read_conll(response_path)
    if not key:
        raise ValueError(f"{key_path}: no '#begin document' blocks found")
    names, preds, refs = aligned_documents(key, response, key_source=str(key_path),
                                           response_source=str(response_path))
    return evaluate_coref(preds, refs, remove_singletons=remove_singletons, per_document=per_document, names=names)


def write_conll(docs: dict[str, Document], path: str | os.PathLike | None = None, *,
                n_tokens: dict[str, int] | None = None) -> str:
    """Write documents whose mention ids are ``"NAME:START-END"`` as a CoNLL file (for tests and tools).

    One token per line (columns: document name, token index, ``tok``, annotation); returns the text and
    writes it to ``path`` when given.
    """
    lines: list[str] = []
    for name, clusters in docs.items():
        annotations: dict[int, list[str]] = {}
        last = -1
        for e, cluster in enumerate(clusters):
            for mid in cluster:
                prefix = f"{name}:"
                if not mid.startswith(prefix):
                    raise ValueError(f"document {name!r}: mention id {mid!r} is not of the form '{prefix}START-END'")
                start, end = (int(x) for x in mid[len(prefix):].split("-"))
                last = max(last, end)
                if start == end:
                    annotations.setdefault(start, []).append(f"({e})")
                else:
                    annotations.setdefault(start, []).append(f"({e}")
                    annotations.setdefault(end, []).append(f"{e})")
        total = max(last + 1, (n_tokens or {}).get(name, 0))
        lines.append(f"#begin document {name}")
        for t in range(total):
            ann = "|".join(annotations.get(t, [])) or "-"
            lines.append(f"{name}\t{t}\ttok\t{ann}")
        lines.append("#end document")
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text
