"""ECB+META (Ahmed et al. 2024) reading: the uCDCR ECB+META_m tables, ECB+META_1, alignment to ECB+.

Sources in the ``ecbmeta`` corpus folder (see :data:`FILES`): uCDCR's processed ECB+META_m
(``ucdcr/output_data/all_mentions.parquet`` + ``all_documents.parquet``), the analysis workbook
``ecb_meta_analysis.xlsx`` (the 277 Dev_small mentions of ECB+META_1), and, when present,
llms_coref's own ``ecb_meta_single/mention_map.pkl`` (ECB+META_1 of dev and test; not distributed).

Every row gets the id and cluster id of its ECB+ mention and the ECB+ trigger in
``original_text``, so the ECB+ release is read too (:func:`find_ecbplus`: ``ecbplus_dir``, else
``<data root>/ecbplus``, else the ``ecbplus`` folder beside the ``ecbmeta`` folder).

META_m heads (:func:`meta_m_head`, option ``head_source``): by default the head of the
metaphoric phrase by :func:`phrase_head_index` (a content word); ``"first_content"`` is the ECB+
rule (first content word); ``"ucdcr"`` keeps uCDCR's parser heads, 12% of which are function words
(``of``, ``in``, ``with``...).
"""

from __future__ import annotations

import ast
import functools
import pickle
import re
from collections import defaultdict
from pathlib import Path

from figbench.corpora import ecbplus as ecb_io
from figbench.corpora import files
from figbench.corpora.files import MissingDataError, RemoteFile
from figbench.corpora.lemmas import lookup_lemma
from figbench.paths import corpus_dir

CORPUS = "ecbmeta"
KINDS = ("meta_m", "meta_1", "aligned", "documents")

_UCDCR = "https://github.com/anastasia-zhukova/uCDCR/raw/3153b86d1b71ff88af1331bd15c3907c77551d60/ECBplusMETAm-prep/output_data"
_LLMS = "https://github.com/ahmeshaf/llms_coref/raw/4f8b409141d4ad07e7564ebe012b32704e021750"
MENTIONS = "ucdcr/output_data/all_mentions.parquet"
DOCUMENTS = "ucdcr/output_data/all_documents.parquet"
XLSX = "ecb_meta_analysis.xlsx"
#: ECB+META_1 in llms_coref's own corpus format (``corpus/ecb_meta_single/mention_map.pkl`` of its
#: scripts), read when present in the ``ecbmeta`` folder; it is not distributed as a file.
META1_PKL = "ecb_meta_single/mention_map.pkl"
_LLMS_SPLIT = {"dev": "validation", "test": "test"}
XLSX_SHEET = "Comprehension_analysis"
XLSX_HEADER = ("m_id", "ECB+", "ECB+META_1", "ECB+META_m")

SPLITS = ("validation", "dev_small", "dev_rest", "test")
#: Values of the ``head_source`` option of META_m (first = default).
HEAD_SOURCES = ("content", "first_content", "ucdcr")
#: English prepositions missing from spaCy's stop-word list: function words, never a phrase head.
EXTRA_FUNCTION_WORDS = frozenset({"like", "unlike", "amid", "amidst", "beneath", "underneath", "despite", "inside",
                                  "outside", "near", "alongside", "atop", "till", "unto", "versus", "vs"})
#: Tokens that continue a run of content words when another content word follows: the possessive
#: clitic (``earth 's fury``), hyphens and dashes (``high - stakes venture``), a decimal point (``6 . 1``).
PHRASE_JOINERS = frozenset({"'s", "\u2019s", "-", "\u2013", "."})
#: uCDCR head POS tags that are function words (the heads the ``content`` rule replaces at the least).
FUNCTION_POS = frozenset({"ADP", "DET", "PRON", "CCONJ", "SCONJ", "PART", "AUX", "PUNCT"})
_UCDCR_SPLIT = {"val": "validation", "test": "test"}
_EVENT_TYPES = ("ACT", "NEG")
_MARK = re.compile(r"<m>(.*?)</m>", re.S)


#: The downloadable files of the ``ecbmeta`` folder; sha256 computed from the local copies.
FILES: tuple[RemoteFile, ...] = (
    RemoteFile(MENTIONS, f"{_UCDCR}/all_mentions.parquet",
               "cb308f5ec0ea5927cb7668d99a8b661be301099f34a554298d35447ce4ac975f",
               description="uCDCR ECB+META_m mentions"),
    RemoteFile(DOCUMENTS, f"{_UCDCR}/all_documents.parquet",
               "326ba8f7204967c2cffd2ffa2c5fb319fe4d18a084994c33a0779c84cd88934a",
               description="uCDCR ECB+META_m documents (tokens)"),
    RemoteFile(XLSX, f"{_LLMS}/data/ecb_meta_analysis.xlsx",
               "0dffed0185270a3ee64dd8a2a2b60e5c2f7f36b35f485f854fe0a7f13a07d72b",
               description="the 277 Dev_small mentions of ECB+META_1 (sheet Comprehension_analysis)"),
)
_BY_PATH = {f.path: f for f in FILES}


def needed_files(kind: str, root: Path) -> list[str]:
    """Files of the ``ecbmeta`` folder a config reads: ECB+META_1 from the pickle when present, else the sheet."""
    if kind not in KINDS:
        raise ValueError(f"ecbmeta: unknown kind {kind!r}; known: {', '.join(KINDS)}")
    need = []
    if kind in ("meta_m", "aligned"):
        need += [MENTIONS, DOCUMENTS]
    if kind == "documents":
        need.append(DOCUMENTS)
    if kind in ("meta_1", "aligned"):
        need.append(META1_PKL if (root / META1_PKL).is_file() else XLSX)
    return need


def resolve_files(kind: str, root: Path, *, data_dir: str | None = None,
                  download: bool | None = None) -> dict[str, Path]:
    """Paths of the files a config reads (downloaded into ``root`` when missing and allowed)."""
    need = needed_files(kind, root)
    remote = [_BY_PATH[p] for p in need if p in _BY_PATH]
    found = files.resolve(CORPUS, root, remote, data_dir=data_dir, download=download)
    return {p: found.get(p, root / p) for p in need}


def ecbplus_candidates(meta_root: Path, ecbplus_dir: str | None = None) -> list[Path]:
    """Where the ECB+ release is looked for, in order: ``ecbplus_dir``; else ``<data root>/ecbplus`` and the
    ``ecbplus`` folder beside the ``ecbmeta`` folder."""
    if ecbplus_dir:
        return [Path(ecbplus_dir).expanduser().resolve()]
    return list(dict.fromkeys([corpus_dir("ecbplus"), Path(meta_root).parent / "ecbplus"]))


def find_ecbplus(meta_root: Path, ecbplus_dir: str | None = None, *, strict: bool = True,
                 download: bool | None = None) -> ecb_io.EcbSources:
    """The ECB+ release for ids, cluster ids and original triggers (:func:`ecbplus_candidates`).

    The first candidate holding an ``ECB+`` folder is read (its other files downloaded when missing
    and allowed). With none, the release is downloaded into the first candidate when allowed, else
    one :class:`MissingDataError` says where it looked, which files are missing and their URLs.
    """
    candidates = ecbplus_candidates(meta_root, ecbplus_dir)
    hit = next((c for c in candidates if (c / ecb_io.XML_DIR).is_dir()), candidates[0])
    try:
        return ecb_io.EcbSources.local(hit, strict=strict, data_dir=ecbplus_dir, download=download)
    except MissingDataError as e:
        looked = "\n".join(f"  - {c / ecb_io.XML_DIR}" for c in candidates)
        raise MissingDataError(
            "ecbmeta: the ECB+ release is needed for ids, cluster ids and original triggers; looked for it at:\n"
            f"{looked}\n{e}\nFor ecbmeta, pass ecbplus_dir=<the ecbplus folder> (CLI: --option ecbplus_dir=DIR), "
            "or keep the ecbplus folder beside the ecbmeta folder.") from None


class EcbMetaFormatError(ValueError):
    """A malformed ECB+META source file; the message names the file and record."""


# --------------------------------------------------------------------------------------------
# readers


def _parse_list(value, path: Path, mention_id: str, field: str) -> list:
    if isinstance(value, (list, tuple)):
        return list(value)
    try:
        out = ast.literal_eval(value) if isinstance(value, str) else list(value)
    except (ValueError, SyntaxError, TypeError):
        raise EcbMetaFormatError(f"{path}: mention {mention_id}: field {field} is not a list: {value!r}") from None
    if not isinstance(out, list):
        raise EcbMetaFormatError(f"{path}: mention {mention_id}: field {field} is not a list: {value!r}")
    return out


def read_ucdcr_documents(path: Path, defects: dict | None = None) -> dict[str, list[tuple[int, int, str]]]:
    """uCDCR tokens per document id (``12_10ecb``): ``[(sent_id, token_id, token)]`` in order.

    The released table repeats the token block of 94 documents (43 of them once under ``val`` and
    once under ``test``); identical repeats are dropped and counted in ``defects``
    (``repeated_documents``, ``documents_in_two_splits``); a repeat with different token text raises.
    """
    import pandas as pd

    try:
        df = pd.read_parquet(path, columns=["topic/subtopic_name/doc", "sent_id", "token_id", "token", "split"])
    except Exception as e:  # pyarrow raises several types for truncated / wrong files
        raise EcbMetaFormatError(f"{path}: cannot read the uCDCR documents table ({e})") from None
    docs: dict[str, dict[tuple[int, int], str]] = defaultdict(dict)
    repeated: set[str] = set()
    splits: dict[str, set[str]] = defaultdict(set)
    for key, sent, tok, text, split in df.itertuples(index=False):
        parts = str(key).split("/")
        if len(parts) != 3 or not parts[1].startswith(parts[0]) or not parts[2].isdigit():
            raise EcbMetaFormatError(f"{path}: bad document key {key!r} (expected <topic>/<topic>ecb[plus]/<n>)")
        doc_id = f"{parts[0]}_{parts[2]}{parts[1][len(parts[0]):]}"
        splits[doc_id].add(str(split))
        pos = (int(sent), int(tok))
        old = docs[doc_id].get(pos)
        if old is not None:
            if old != str(text):
                raise EcbMetaFormatError(
                    f"{path}: document {key} token {pos} is both {old!r} and {text!r}"
                )
            repeated.add(doc_id)
        docs[doc_id][pos] = str(text)
    if defects is not None:
        defects["repeated_documents"] = len(repeated)
        defects["documents_in_two_splits"] = sum(1 for v in splits.values() if len(v) > 1)
    return {d: [(s, t, w) for (s, t), w in sorted(toks.items())] for d, toks in docs.items()}


_MENTION_COLUMNS = ("mention_id", "coref_chain", "tokens_str", "mention_type", "mention_full_type", "tokens_text",
                    "tokens_number", "mention_head", "mention_head_pos", "mention_head_lemma", "sent_id",
                    "topic", "subtopic_id", "doc", "split")


def read_ucdcr_event_mentions(path: Path) -> list[dict]:
    """The ECB+META_m event mentions (``ACT``/``NEG``) of uCDCR's ``all_mentions.parquet`` as dicts."""
    import pandas as pd

    try:
        df = pd.read_parquet(path)
    except Exception as e:
        raise EcbMetaFormatError(f"{path}: cannot read the uCDCR mentions table ({e})") from None
    missing = [c for c in _MENTION_COLUMNS if c not in df.columns]
    if missing:
        raise EcbMetaFormatError(f"{path}: missing columns {missing}")
    df = df[df["mention_type"].isin(_EVENT_TYPES)]
    if df["mention_id"].duplicated().any():
        dup = df.loc[df["mention_id"].duplicated(), "mention_id"].iloc[0]
        raise EcbMetaFormatError(f"{path}: duplicate mention_id {dup}")
    return df[list(_MENTION_COLUMNS)].to_dict("records")


def ecb_anchor(ucdcr_mention_id: str, path: Path) -> tuple[int, int]:
    """``(sentence, token number)`` of the ECB+ trigger encoded in a uCDCR id ``..._<sent>_<tok>_<rand>``."""
    parts = ucdcr_mention_id.rsplit("_", 3)
    if len(parts) != 4 or not parts[1].isdigit() or not parts[2].isdigit():
        raise EcbMetaFormatError(f"{path}: mention id {ucdcr_mention_id!r} does not end in _<sent>_<token>_<suffix>")
    return int(parts[1]), int(parts[2])


def read_comprehension_sheet(path: Path) -> list[dict]:
    """Rows of sheet ``Comprehension_analysis``: m_id and the marked ECB+, META_1 and META_m sentences."""
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as e:
        raise EcbMetaFormatError(f"{path}: cannot read the workbook ({e})") from None
    if XLSX_SHEET not in wb.sheetnames:
        raise EcbMetaFormatError(f"{path}: no sheet {XLSX_SHEET!r} (has {wb.sheetnames})")
    rows = wb[XLSX_SHEET].iter_rows(values_only=True)
    header = tuple(next(rows, ()) or ())
    if header[: len(XLSX_HEADER)] != XLSX_HEADER:
        raise EcbMetaFormatError(f"{path}: sheet {XLSX_SHEET} header {header[:4]!r}, expected {XLSX_HEADER}")
    out, seen = [], set()
    for n, row in enumerate(rows, start=2):
        if not row or row[0] is None:
            continue
        m_id = str(row[0]).strip()
        if m_id in seen:
            raise EcbMetaFormatError(f"{path}: {XLSX_SHEET} row {n}: duplicate m_id {m_id}")
        seen.add(m_id)
        rec = {"m_id": m_id, "row": n, "where": f"{path}: {XLSX_SHEET} row {n} (m_id {m_id})"}
        for col, name in zip(XLSX_HEADER[1:], ("ecb", "meta_1", "meta_m")):
            rec[name] = "" if row[XLSX_HEADER.index(col)] is None else str(row[XLSX_HEADER.index(col)])
        out.append(rec)
    wb.close()
    return out


class _PlainUnpickler(pickle.Unpickler):
    """Unpickles plain Python data only (dicts, lists, strings, numbers): no code from the file runs."""

    _ALLOWED = {("builtins", n) for n in ("dict", "list", "set", "frozenset", "tuple", "str", "int", "float",
                                          "bool", "complex", "bytes")}
    _ALLOWED |= {("collections", "OrderedDict"), ("collections", "defaultdict")}

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"global {module}.{name} is not plain data")


def read_llms_coref_mention_map(path: Path) -> list[dict]:
    """ECB+META_1 event mentions of the dev and test splits from llms_coref's ``mention_map.pkl``.

    Each entry (key ``<doc>.xml_<m_id>``) needs ``men_type``, ``split`` and ``marked_sentence``
    (the paraphrased sentence with ``<m> ... </m>`` around the trigger).
    """
    try:
        with open(path, "rb") as f:
            data = _PlainUnpickler(f).load()
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, ValueError, TypeError) as e:
        raise EcbMetaFormatError(f"{path}: not an llms_coref mention_map pickle ({e})") from None
    if not isinstance(data, dict):
        raise EcbMetaFormatError(f"{path}: expected a dict of mentions, got {type(data).__name__}")
    out = []
    for key, men in data.items():
        where = f"{path}: mention {key}"
        if not isinstance(men, dict) or "men_type" not in men or "split" not in men:
            raise EcbMetaFormatError(f"{where}: not a mention dict with men_type and split")
        split = _LLMS_SPLIT.get(men["split"])
        if men["men_type"] != "evt" or split is None:
            continue  # entities and train mentions were not paraphrased
        marked = men.get("marked_sentence")
        if not isinstance(marked, str):
            raise EcbMetaFormatError(f"{where}: no marked_sentence")
        out.append({"m_id": str(key), "where": where, "meta_1": marked, "split": split})
    return out


def split_marked(marked: str, where: str) -> tuple[list[str], int, int]:
    """Tokenise a sentence with one ``<m> ... </m>`` span (spaCy's English tokenizer): tokens, start, end."""
    found = list(_MARK.finditer(marked))
    if len(found) != 1:
        raise EcbMetaFormatError(f"{where}: expected one <m> ... </m> span, found {len(found)}: {marked[:120]!r}")
    tok = _tokenizer()
    before = [t.text for t in tok(marked[: found[0].start()]) if not t.is_space]
    inside = [t.text for t in tok(found[0].group(1)) if not t.is_space]
    after = [t.text for t in tok(marked[found[0].end():]) if not t.is_space]
    if not inside:
        raise EcbMetaFormatError(f"{where}: empty <m></m> span")
    return before + inside + after, len(before), len(before) + len(inside)


_TOK = None


def _tokenizer():
    global _TOK
    if _TOK is None:
        from figbench.imports import spacy as import_spacy

        spacy = import_spacy()

        _TOK = spacy.blank("en").tokenizer
    return _TOK


# --------------------------------------------------------------------------------------------
# META_m heads


@functools.lru_cache(maxsize=1)
def _adverb_only() -> frozenset[str]:
    """Words spaCy's English lemma index (WordNet word lists in ``spacy-lookups-data``) lists as adverbs only."""
    from figbench.imports import spacy as import_spacy

    import_spacy()   # spaCy without thinc's torch import (figbench.imports)
    from spacy.lookups import load_lookups

    index = load_lookups("en", ["lemma_index"]).get_table("lemma_index")
    other = set(index["noun"]) | set(index["verb"]) | set(index["adj"])
    return frozenset(w for w in index["adv"] if w not in other)


def is_content_word(word: str) -> bool:
    """Has a letter or digit and is neither a spaCy English stop word nor one of :data:`EXTRA_FUNCTION_WORDS`."""
    low = word.lower()
    return (any(c.isalnum() for c in word) and low not in ecb_io._stop_words()
            and low not in EXTRA_FUNCTION_WORDS)


def phrase_head_index(words: list[str]) -> int | None:
    """Index of the head of a metaphoric trigger phrase, or None when it has no content word.

    Approximates the syntactic root of the phrase (what the ECB+META authors took, with
    ``en_core_web_lg``) without a parser: take the first run of content words
    (:func:`is_content_word`; a run continues over :data:`PHRASE_JOINERS` between two content
    words and ends at any other token) and return its last word that is not an adverb-only word.
    English pre-modifiers precede their head (``judicial crucible``, ``earth 's tremors``), a
    function word after the head starts its complement (``storm of warfare``, ``dancing to the
    tune of``), and a determiner after a verb starts its object (``engrave their names``).
    Known misses: a verb followed by a bare noun or adjective (``unleashed fury``, ``sent packing``
    give the noun), which needs a tagger to tell from a participle modifier (``guiding hand``).
    """
    content = [i for i, w in enumerate(words) if is_content_word(w)]
    if not content:
        return None
    run = [content[0]]
    j = content[0] + 1
    while j < len(words):
        if is_content_word(words[j]):
            run.append(j)
            j += 1
        elif words[j] in PHRASE_JOINERS and j + 1 < len(words) and is_content_word(words[j + 1]):
            j += 1
        else:
            break
    adverbs = _adverb_only()
    heads = [i for i in run if words[i].lower() not in adverbs] or run
    return heads[-1]


def ucdcr_head_index(mention: dict, words: list[str], numbers: list[int]) -> int | None:
    """Index in the span of uCDCR's head token (``mention_head_id``, else the first token equal to ``mention_head``)."""
    hid = mention.get("mention_head_id")
    if hid is not None and not (isinstance(hid, float) and hid != hid) and int(hid) in numbers:
        return numbers.index(int(hid))
    head = str(mention.get("mention_head", ""))
    return words.index(head) if head in words else None


def meta_m_head(mention: dict, words: list[str], numbers: list[int],
                head_source: str = "content") -> tuple[str, str, str, str]:
    """``(head, head_lemma, pos, how)`` of a META_m mention under ``head_source`` (see :data:`HEAD_SOURCES`).

    ``content``: :func:`phrase_head_index`; ``first_content``: the ECB+ rule
    (:func:`figbench.corpora.ecbplus.head_index`, first content word). Both lemmatise with the ECB+
    lookup lemmatiser, so lemmas compare with ECB+ train's (LH's synonymous lemma pairs). A span
    without a content word keeps uCDCR's head, lemmatised the same way. ``pos`` is uCDCR's when the
    head is uCDCR's head token, else ``""`` (no tagger). ``how``: ``same`` (uCDCR's token),
    ``changed`` or ``fallback`` (no content word: uCDCR's head). ``ucdcr``: uCDCR's head, lemma and POS.
    """
    if head_source not in HEAD_SOURCES:
        raise ValueError(f"ecbmeta: head_source must be one of {', '.join(map(repr, HEAD_SOURCES))}, "
                         f"not {head_source!r}")
    u_index = ucdcr_head_index(mention, words, numbers)
    u_head, u_pos = str(mention["mention_head"]), str(mention.get("mention_head_pos") or "")
    if head_source == "ucdcr":
        return u_head, str(mention["mention_head_lemma"]).lower(), u_pos, "same"
    if not any(is_content_word(w) for w in words):
        index, how = u_index, "fallback"
        head = u_head
    else:
        index = phrase_head_index(words) if head_source == "content" else ecb_io.head_index(words, "event")
        head = words[index]
        how = "same" if index == u_index else "changed"
    lemma = lookup_lemma(head, "en", case=ecb_io.ECB_LEMMA_CASE)
    return head, lemma, (u_pos if index is not None and index == u_index else ""), how


# --------------------------------------------------------------------------------------------
# rows


def meta_m_rows(
    mentions: list[dict], docs: dict, ecb_rows: list[dict], path: Path, *, cluster_source: str = "ecbplus",
    head_source: str = "content", report: dict | None = None,
) -> tuple[list[dict], list[str]]:
    """META_m rows of one uCDCR split aligned to the ECB+ rows of the same split (in ECB+ order), and
    the ids of the ECB+ mentions that have no META_m version.

    ``cluster_source="ecbplus"``: the ECB+ cluster ids (the ECB+ partition). ``"ucdcr"``: uCDCR's
    chains, which merge a few within-document chains of different documents (see the card); a
    chain that is exactly one ECB+ cluster keeps the ECB+ id, a merged one is ``UCDCR_<chain>``.
    ``head_source``: see :func:`meta_m_head`; ``report["meta_m_heads"]`` lists per mention id how
    the head was found (``same`` / ``changed`` / ``fallback``) and uCDCR's head.
    """
    if head_source not in HEAD_SOURCES:
        raise ValueError(f"ecbmeta: head_source must be one of {', '.join(map(repr, HEAD_SOURCES))}, "
                         f"not {head_source!r}")
    if cluster_source not in ("ecbplus", "ucdcr"):
        raise ValueError(f"cluster_source must be 'ecbplus' or 'ucdcr', not {cluster_source!r}")
    index = {(r["doc_id"], r["sentence_id"], r["token_start"]): r for r in ecb_rows}
    out: dict[str, dict] = {}
    chains: dict[str, str] = {}
    for m in mentions:
        mid = m["mention_id"]
        sent, tok = ecb_anchor(mid, path)
        ecb = index.get((m["doc"], sent, tok))
        if ecb is None:
            raise EcbMetaFormatError(
                f"{path}: mention {mid}: no ECB+ event mention starts at {m['doc']} sentence {sent} token {tok}"
            )
        if ecb["mention_id"] in out:
            raise EcbMetaFormatError(f"{path}: mention {mid}: a second META_m mention for ECB+ {ecb['mention_id']}")
        doc = docs.get(m["doc"])
        if doc is None:
            raise EcbMetaFormatError(f"{path}: mention {mid}: document {m['doc']} is not in {DOCUMENTS}")
        sentence = [t for s, _, t in doc if s == int(m["sent_id"])]
        numbers = [int(n) for n in _parse_list(m["tokens_number"], path, mid, "tokens_number")]
        words = [str(w) for w in _parse_list(m["tokens_text"], path, mid, "tokens_text")]
        if not numbers or len(numbers) != len(words):
            raise EcbMetaFormatError(f"{path}: mention {mid}: tokens_number {numbers} and tokens_text {words} differ")
        start, end = min(numbers), max(numbers) + 1
        if end > len(sentence) or [sentence[i] for i in numbers] != words:
            raise EcbMetaFormatError(
                f"{path}: mention {mid}: span {words} not found at tokens {numbers} "
                f"of {m['doc']} sentence {m['sent_id']}"
            )
        offset = next(i for i, (s, _, _) in enumerate(doc) if s == int(m["sent_id"]))
        chains[ecb["mention_id"]] = str(m["coref_chain"])
        head, head_lemma, pos, how = meta_m_head(m, words, numbers, head_source)
        if report is not None:
            report.setdefault("meta_m_heads", {})[ecb["mention_id"]] = {
                "how": how, "head": head, "ucdcr_head": str(m["mention_head"]),
                "ucdcr_pos": str(m.get("mention_head_pos") or "")}
        out[ecb["mention_id"]] = {
            "mention_id": ecb["mention_id"],
            "doc_id": m["doc"],
            "topic": str(m["topic"]),
            "subtopic": str(m["subtopic_id"]),
            "sentence_id": int(m["sent_id"]),
            "token_start": start,
            "token_end": end,
            "text": " ".join(words),  # tokens joined by spaces, as for ECB+ (uCDCR's tokens_str is detokenised)
            "head": head,
            "head_lemma": head_lemma,
            "pos": pos,
            "mention_class": "event",
            "mention_type": str(m["mention_full_type"]),
            "cluster_id": ecb["cluster_id"],
            "sentence": sentence,
            "context": [t for _, _, t in doc],
            "context_start": offset + start,
            "context_end": offset + end,
            "original_text": ecb["text"],
        }
    rows = [out[r["mention_id"]] for r in ecb_rows if r["mention_id"] in out]
    missing = [r["mention_id"] for r in ecb_rows if r["mention_id"] not in out]
    merged = merged_chains(rows, chains)
    if report is not None:
        report.setdefault("ucdcr_merged_chains", []).extend(merged)
    if cluster_source == "ucdcr":
        renamed = {c: f"UCDCR_{c}" for c in merged}
        for r in rows:
            r["cluster_id"] = renamed.get(chains[r["mention_id"]], r["cluster_id"])
    return rows, missing


def merged_chains(rows: list[dict], chain_of: dict[str, str]) -> list[str]:
    """uCDCR chains that do not coincide with one ECB+ cluster (``chain_of``: mention id -> uCDCR chain)."""
    to_ecb: dict[str, set[str]] = defaultdict(set)
    to_chain: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        to_ecb[chain_of[r["mention_id"]]].add(r["cluster_id"])
        to_chain[r["cluster_id"]].add(chain_of[r["mention_id"]])
    bad = {c for c, es in to_ecb.items() if len(es) > 1}
    bad |= {c for cs in to_chain.values() if len(cs) > 1 for c in cs}
    return sorted(bad)


def meta_1_rows(records: list[dict], ecb_rows: list[dict], what: str = "Dev_small") -> list[dict]:
    """META_1 rows (one per record: ``m_id``, ``where``, marked ``meta_1`` sentence) with the ECB+ ids,
    clusters and triggers of ``ecb_rows``, in ECB+ order."""
    by_id = {r["mention_id"]: r for r in ecb_rows}
    out: list[dict] = []
    seen: set[str] = set()
    for rec in records:
        mid = ecb_io.from_llms_coref_mention_id(rec["m_id"])
        ecb = by_id.get(mid)
        where = rec["where"]
        if ecb is None:
            raise EcbMetaFormatError(f"{where}: not an ECB+ {what} event mention")
        if mid in seen:
            raise EcbMetaFormatError(f"{where}: a second META_1 version of ECB+ mention {mid}")
        seen.add(mid)
        tokens, start, end = split_marked(rec["meta_1"], where)
        words = tokens[start:end]
        head = words[ecb_io.head_index(words, "event")]
        out.append(
            {
                "mention_id": mid,
                "doc_id": ecb["doc_id"],
                "topic": ecb["topic"],
                "subtopic": ecb["subtopic"],
                "sentence_id": ecb["sentence_id"],
                "token_start": start,
                "token_end": end,
                "text": " ".join(words),
                "head": head,
                "head_lemma": lookup_lemma(head, "en", case=ecb_io.ECB_LEMMA_CASE),
                "pos": "",
                "mention_class": "event",
                "mention_type": ecb["mention_type"],
                "cluster_id": ecb["cluster_id"],
                "sentence": tokens,
                "context": tokens,
                "context_start": start,
                "context_end": end,
                "original_text": ecb["text"],
            }
        )
    order = {r["mention_id"]: i for i, r in enumerate(ecb_rows)}
    return sorted(out, key=lambda r: order[r["mention_id"]])


def aligned_rows(ecb: list[dict], meta_m: list[dict], meta_1: list[dict]) -> list[dict]:
    """One row per ECB+ mention with its META_m / META_1 versions (empty when there is none)."""
    mm = {r["mention_id"]: r for r in meta_m}
    m1 = {r["mention_id"]: r for r in meta_1}
    out = []
    for r in ecb:
        row = {k: r[k] for k in ("mention_id", "doc_id", "topic", "sentence_id", "cluster_id", "mention_type")}
        for name, src in (("ecb", r), ("meta_m", mm.get(r["mention_id"])), ("meta_1", m1.get(r["mention_id"]))):
            row[f"{name}_text"] = src["text"] if src else ""
            row[f"{name}_sentence"] = src["sentence"] if src else []
            row[f"{name}_token_start"] = src["token_start"] if src else -1
            row[f"{name}_token_end"] = src["token_end"] if src else -1
        row["has_meta_m"] = r["mention_id"] in mm
        row["has_meta_1"] = r["mention_id"] in m1
        out.append(row)
    return out


def build_rows(kind: str, files: dict[str, Path], ecb: ecb_io.EcbSources, *, cluster_source: str = "ecbplus",
               head_source: str = "content", report: dict | None = None) -> dict[str, list[dict]]:
    """Rows of every split of one config (``kind``: meta_m / meta_1 / aligned / documents).

    ``report`` (optional dict) receives what the card reports: ECB+ mentions without a META_m
    version per split, uCDCR chains that merge ECB+ clusters, repeated uCDCR documents, how each
    META_m head was found (``meta_m_heads``).
    """
    report = {} if report is None else report
    small_docs = set(ecb_io.read_dev_small(ecb.dev_small))
    out: dict[str, list[dict]] = {}
    if kind == "documents":
        docs = read_ucdcr_documents(files[DOCUMENTS], report)
        return {s: [row for _, row in document_rows(docs, s, small_docs)] for s in SPLITS}
    mentions = read_ucdcr_event_mentions(files[MENTIONS]) if kind in ("meta_m", "aligned") else []
    docs = read_ucdcr_documents(files[DOCUMENTS], report) if mentions else {}
    meta_1_records: list[dict] = []
    full_meta_1 = META1_PKL in files
    if kind in ("meta_1", "aligned"):
        meta_1_records = (read_llms_coref_mention_map(files[META1_PKL]) if full_meta_1
                          else read_comprehension_sheet(files[XLSX]))
    for base in ("validation", "test"):
        if kind == "meta_1" and base == "test" and not full_meta_1:
            continue
        ecb_rows = ecb_io.split_mention_rows(ecb, base, "event")
        meta_m, meta_1 = [], []
        if mentions:
            own = [m for m in mentions if _UCDCR_SPLIT.get(m["split"]) == base]
            unknown = {m["split"] for m in mentions} - set(_UCDCR_SPLIT)
            if unknown:
                raise EcbMetaFormatError(f"{files[MENTIONS]}: unknown split value(s) {sorted(unknown)}")
            meta_m, missing = meta_m_rows(
                own, docs, ecb_rows, files[MENTIONS], cluster_source=cluster_source, head_source=head_source,
                report=report,
            )
            report[f"meta_m_missing_{base}"] = missing
        if meta_1_records and full_meta_1:
            meta_1 = meta_1_rows([r for r in meta_1_records if r["split"] == base], ecb_rows, base)
            report[f"meta_1_missing_{base}"] = sorted({r["mention_id"] for r in ecb_rows}
                                                      - {r["mention_id"] for r in meta_1})
        elif meta_1_records and base == "validation":
            meta_1 = meta_1_rows(meta_1_records, [r for r in ecb_rows if r["doc_id"] in small_docs])
        rows = {"meta_m": meta_m, "meta_1": meta_1}.get(kind)
        if rows is None:
            rows = aligned_rows(ecb_rows, meta_m, meta_1)
        if base == "test":
            out["test"] = rows
            continue
        only_small = kind == "meta_1" and not full_meta_1
        if not only_small:
            out["validation"] = rows
        out["dev_small"] = [r for r in rows if r["doc_id"] in small_docs]
        if not only_small:
            out["dev_rest"] = [r for r in rows if r["doc_id"] not in small_docs]
    return {s: out[s] for s in SPLITS if s in out}


def document_rows(docs: dict[str, list[tuple[int, int, str]]], split: str, dev_small: set[str]):
    """``(doc_id, row)`` of the uCDCR ECB+META_m documents of one split (by topic), in ECB+ document order."""
    base = "test" if split == "test" else "validation"
    for doc_id in sorted(docs, key=_doc_order):
        topic, rest = doc_id.split("_", 1)
        if ecb_io.split_of(topic) != base:
            continue
        if split in ("dev_small", "dev_rest") and (doc_id in dev_small) != (split == "dev_small"):
            continue
        toks = docs[doc_id]
        yield doc_id, {
            "doc_id": doc_id,
            "topic": topic,
            "subtopic": topic + re.sub(r"^\d+", "", rest),
            "tokens": [t for _, _, t in toks],
            "sentence_ids": [s for s, _, _ in toks],
        }


def _doc_order(doc_id: str):
    topic, rest = doc_id.split("_", 1)
    n = re.match(r"\d+", rest).group(0)
    return int(topic), rest.endswith("plus"), int(n)
