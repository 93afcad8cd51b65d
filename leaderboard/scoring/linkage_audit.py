"""How derivable a "hidden" gold is from public text: the linkage audit ``figbench leaderboard hidden add`` runs
before it writes anything.

A hidden split made from public material (a generated META split of ECB+ test, a fresh Wikipedia harvest) keeps
its sentences: whoever holds the public corpus can link each item back to it and read the gold there, without a
single submission. The audit links every item of the (already sanitised) inputs to the public corpora figbench
can load locally, by

* **exact sentence** match (the sentence's tokens, or its text),
* **fuzzy sentence** match (lower-cased word 3-gram shingles, Jaccard >= ``FUZZY``: edits, re-tokenisation and
  a generated metaphor in place of a word still link),
* **token span** match inside the linked sentence (the mention's tokens, at its offsets or elsewhere),

and then reads the linked public items' gold: an item's gold is *reconstructed* when the public gold gives it
(a label: the same label; a cluster: the same cluster mates, among the linked items). For a split harvested from
a MediaWiki dump (``figbench harvest``), the dump's page text is public too (:meth:`PublicIndex.add_dump`): an
item whose sentence is on a public page counts as reconstructed, since the harvester, run on that page, gives its
gold (the page's links and articles are the gold). The share of reconstructed
items is printed, stored in the benchmark's declaration and shown on the board: *hidden, private gold* only at
0%, else *hidden, derivable from public text (N%)*.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)
FUZZY = 0.6   #: Jaccard of word 3-gram shingles from which two sentences are the same sentence
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_COLUMNS = ("sentence", "text", "context", "sentence_text", "narrative", "premise", "hypothesis")
_SPAN_COLUMNS = (("token_start", "token_end"), ("span_start", "span_end"), ("start", "end"))
PAGE = "\x1fpage"   #: the gold of public page text: what the harvester makes of the page


@dataclass
class Audit:
    """The audit's result: items, items linked to public text, items whose gold the public gold gives."""

    items: int = 0
    linked: int = 0
    reconstructed: int = 0
    sources: Counter = field(default_factory=Counter)   #: linked items per public corpus/config/split

    @property
    def share(self) -> float:
        return self.reconstructed / self.items if self.items else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "linked": self.linked, "reconstructed": self.reconstructed,
                "share": round(self.share, 4), "sources": dict(self.sources)}


def _words(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        value = " ".join(str(v) for v in value)
    return [w.lower() for w in _WORD.findall(str(value or ""))]


def _shingles(words: Sequence[str]) -> set[tuple[str, ...]]:
    if len(words) < 3:
        return {tuple(words)} if words else set()
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}


def _sentence(row: Mapping[str, Any]) -> list[str]:
    for col in _SENTENCE_COLUMNS:
        if row.get(col):
            return _words(row[col])
    return []


def _span(row: Mapping[str, Any], sentence_tokens: Any) -> tuple[str, ...] | None:
    """The item's span as lower-cased words (its tokens at its offsets, else its ``text`` when the sentence is
    a separate column)."""
    for a, b in _SPAN_COLUMNS:
        if isinstance(row.get(a), int) and isinstance(row.get(b), int) and isinstance(sentence_tokens, list):
            return tuple(_words(sentence_tokens[row[a]:row[b] + (1 if b == "token_end" else 0)]))
    return None


class PublicIndex:
    """Every item of the public splits given, by sentence (exact and shingles) and span, with its gold."""

    def __init__(self) -> None:
        self.exact: dict[str, list[int]] = defaultdict(list)
        self.by_shingle: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self.items: list[tuple[str, tuple[str, ...] | None, Any, str]] = []   # (sentence key, span, gold, source)
        self._sentences: dict[str, int] = {}
        self._shingle_sets: list[set] = []
        self._sentence_items: dict[int, list[int]] = defaultdict(list)

    def add_split(self, source: str, rows: Iterable[Mapping[str, Any]], gold_column: str | None) -> int:
        n = 0
        for row in rows:
            words = _sentence(row)
            if not words:
                continue
            key = " ".join(words)
            sid = self._sentences.get(key)
            if sid is None:
                sid = self._sentences[key] = len(self._shingle_sets)
                shingles = _shingles(words)
                self._shingle_sets.append(shingles)
                for s in shingles:
                    self.by_shingle[s].append(sid)
            span = _span(row, row.get("sentence") if isinstance(row.get("sentence"), list) else None)
            gold = row.get(gold_column) if gold_column else None
            self._sentence_items[sid].append(len(self.items))
            self.items.append((key, span, None if gold is None else f"{source}\x1f{gold}", source))
            n += 1
        return n

    def add_dump(self, dump: Any) -> int:
        """Index the prose paragraphs of every page of a MediaWiki dump (a path, a glob or a list, as ``figbench
        harvest --dump`` takes it) as public page text; returns the paragraphs indexed."""
        from figbench.harvest import dump as dumps
        from figbench.harvest.wikitext import blocks, parse

        def paragraphs():
            for part in dumps.partitions(dump):
                for page in dumps.iter_pages(part):
                    if page.redirect is None and page.text:
                        yield from ({"text": b.text} for b in blocks(parse(page.text)) if b.kind == "prose" and b.text)

        n = 0
        for row in paragraphs():
            words = _sentence(row)
            if not words:
                continue
            key = " ".join(words)
            if key not in self._sentences:
                self._sentences[key] = len(self._shingle_sets)
                shingles = _shingles(words)
                self._shingle_sets.append(shingles)
                for sh in shingles:
                    self.by_shingle[sh].append(self._sentences[key])
            self._sentence_items[self._sentences[key]].append(len(self.items))
            self.items.append((key, None, PAGE, "dump page text"))
            n += 1
        return n

    def link(self, row: Mapping[str, Any], used: set[int] | None = None) -> int | None:
        """The public item an inputs row links to (sentence exact or fuzzy, then its span; among equal ones the
        first not ``used`` yet: a sentence repeated in several documents links one to one), or None."""
        words = _sentence(row)
        if not words:
            return None
        sid = self._sentences.get(" ".join(words))
        if sid is None:   # fuzzy: the public sentence sharing most shingles, when similar enough
            mine = _shingles(words)
            votes = Counter(s for sh in mine for s in self.by_shingle.get(sh, ()))
            best = None
            for cand, shared in votes.most_common(5):
                jac = shared / len(mine | self._shingle_sets[cand])
                if jac >= FUZZY and (best is None or jac > best[1]):
                    best = (cand, jac)
            if best is None:
                return None
            sid = best[0]
        span = _span(row, row.get("sentence") if isinstance(row.get("sentence"), list) else None)
        candidates = self._sentence_items[sid]
        page = next((i for i in candidates if self.items[i][2] == PAGE), None)
        if page is not None:   # on a public page: the item's text is public, whatever its span
            return page
        same = [i for i in candidates if span is not None and self.items[i][1] == span]
        if same:
            return next((i for i in same if i not in (used or ())), same[0])
        return candidates[0] if len(candidates) == 1 and span is None else None


def audit(task, inputs, gold, index: PublicIndex) -> Audit:
    """Link each row of ``inputs`` (a ``datasets.Dataset`` or rows) to ``index`` and count the items whose
    ``gold`` (the task's typed gold of the same split) the linked public gold reconstructs."""
    id_col = getattr(task, "mention_column", None) or getattr(task, "id_column", None)
    rows = list(inputs)
    out = Audit(items=len(rows))
    linked: dict[str, str] = {}   # item id -> public gold key
    used: set[int] = set()
    on_pages = 0
    for row in rows:
        hit = index.link(row, used)
        if hit is None:
            continue
        out.linked += 1
        out.sources[index.items[hit][3]] += 1
        if index.items[hit][2] == PAGE:   # harvested from a public page: the harvester gives its gold
            on_pages += 1
            continue
        used.add(hit)
        if index.items[hit][2] is not None and id_col:
            linked[str(row[id_col])] = index.items[hit][2]
    out.reconstructed = on_pages
    clusters = getattr(gold, "clusters", None)
    if clusters is not None:   # a clustering: the same cluster mates among the linked items
        mine = {str(m): k for k, c in enumerate(clusters) for m in c}
        by_public: dict[str, set[str]] = defaultdict(set)
        by_gold: dict[int, set[str]] = defaultdict(set)
        for m, pub in linked.items():
            by_public[pub].add(m)
            by_gold[mine[m]].add(m)
        gold_size = Counter(mine.values())
        out.reconstructed += sum(1 for m, pub in linked.items()
                                 if by_public[pub] == by_gold[mine[m]] and len(by_gold[mine[m]]) == gold_size[mine[m]])
        return out
    labels = getattr(gold, "labels", None)
    if isinstance(labels, Mapping):
        out.reconstructed += sum(1 for i, pub in linked.items() if pub.split("\x1f", 1)[1] == str(labels.get(i)))
        return out
    out.reconstructed = out.linked   # a kind whose gold the audit cannot compare: a linked item counts
    return out


def local_public_index(task, *, data_dir: str | None = None, corpora: Sequence[str] | None = None) -> PublicIndex:
    """Every public split figbench can load locally (from ``data_dir`` or ``$FIGBENCH_DATA_DIR``; ``corpora``: only
    these), indexed with the gold column of ``task``'s kind where the split has it. A corpus whose files are
    missing is skipped (logged)."""
    import figbench
    from figbench.loading import builder_configs

    index = PublicIndex()
    gold_cols = tuple(task.gold_columns())
    for corpus in sorted(figbench.CORPORA):
        if corpora is not None and corpus not in corpora:
            continue
        try:
            configs = builder_configs(corpus)[0]
        except Exception:  # a builder that does not import
            continue
        for config in configs:
            try:
                splits = figbench.load_dataset(corpus, config, data_dir=data_dir)
            except Exception as e:  # missing files, a config needing a download: not local
                log.info("linkage audit: %s/%s not loadable locally (%s)", corpus, config, type(e).__name__)
                continue
            for split, ds in splits.items():
                gold_col = next((c for c in gold_cols if c in ds.column_names), None)
                index.add_split(f"{corpus}/{config}/{split}", _rows(ds, gold_col), gold_col)
    return index


def _rows(ds, gold_col: str | None) -> Iterable[dict[str, Any]]:
    """The rows of ``ds`` as plain dicts, only the columns the index reads, a batch of Arrow rows at a time
    (``datasets``' row by row iteration decodes every row's features: ten times slower on ECB+)."""
    sentence_cols = []
    for c in _SENTENCE_COLUMNS:   # the sentence is the first non-empty of these: none after a column never empty
        if c in ds.column_names:
            sentence_cols.append(c)
            if _never_empty(ds.data.column(c)):
                break
    wanted = {*sentence_cols, *(c for pair in _SPAN_COLUMNS for c in pair), gold_col}
    cols = [c for c in ds.column_names if c in wanted]
    for batch in ds.select_columns(cols).with_format("arrow").iter(batch_size=4096):
        yield from batch.to_pylist()


def _never_empty(column) -> bool:
    """Whether an Arrow column has a non-empty value in every row (a list or string of length > 0)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.null_count:
        return False
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        lengths = pc.list_value_length(column)
    elif pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        lengths = pc.utf8_length(column)
    else:
        return False
    return len(column) == 0 or pc.min(lengths).as_py() > 0
