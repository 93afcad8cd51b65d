"""ECB+META (Ahmed et al. 2024): ECB+ with event triggers paraphrased metaphorically by GPT-4.

Configs:

* ``meta_m`` (default): multi-word metaphoric triggers, from uCDCR's processed ECB+META_m
  (``ucdcr/output_data/all_mentions.parquet`` + ``all_documents.parquet``); event mentions of the
  validated sentences; splits ``validation`` / ``dev_small`` / ``dev_rest`` / ``test``.
* ``meta_1``: single-word metaphoric triggers: from llms_coref's own corpus file
  ``ecb_meta_single/mention_map.pkl`` when it is in the ``ecbmeta`` folder (all four splits), else
  the 277-mention ``dev_small`` subset of ``ecb_meta_analysis.xlsx`` (sheet
  ``Comprehension_analysis``); contexts are the mention's sentence.
* ``ecbplus_aligned``: every ECB+ event mention of those splits with its META_m and META_1 versions.
* ``documents``: the ECB+META_m documents (uCDCR tokens).

Every mention row has the id and cluster id of its ECB+ mention (so cluster ids compare across
``ecbplus`` and ``ecbmeta``) and the ECB+ trigger in ``original_text``; this needs the ECB+ release
too: ``ecbplus_dir=``, else ``$FIGBENCH_DATA_DIR/ecbplus``, else the ``ecbplus`` folder beside the
``ecbmeta`` folder, else the canonical download.
"""

from __future__ import annotations

import ast
import pickle
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import datasets

from figbench.corpora import ecbplus as ecb_io
from figbench.paths import MissingDataError, corpus_dir, require_files
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES

_CITATION = """\
@inproceedings{ahmed-etal-2024-generating,
    title = "Generating Harder Cross-document Event Coreference Resolution Datasets using Metaphoric Paraphrasing",
    author = "Ahmed, Shafiuddin Rehan and Wang, Zhiyong Eric and Baker, George Arthur and Stowe, Kevin and Martin, James H.",
    booktitle = "Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics (Volume 2: Short Papers)",
    year = "2024",
    address = "Bangkok, Thailand",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2024.acl-short.27/",
    doi = "10.18653/v1/2024.acl-short.27",
    pages = "276--286",
}
"""
_DESCRIPTION = "ECB+ with metaphorically paraphrased event triggers (ECB+META_1, ECB+META_m), aligned to ECB+."
_HOMEPAGE = "https://github.com/ahmeshaf/llms_coref"
_LICENSE = "MIT (data, llms_coref); uCDCR processing CC BY-SA 4.0; ECB+ text CC BY 3.0"

_UCDCR = "https://github.com/anastasia-zhukova/uCDCR/raw/3153b86d1b71ff88af1331bd15c3907c77551d60/ECBplusMETAm-prep/output_data"
_LLMS = "https://github.com/ahmeshaf/llms_coref/raw/4f8b409141d4ad07e7564ebe012b32704e021750"
#: Relative path in the ``ecbmeta`` folder -> (canonical URL, sha256 computed from the local copies).
_URLS: dict[str, tuple[str, str | None]] = {
    "ucdcr/output_data/all_mentions.parquet": (
        f"{_UCDCR}/all_mentions.parquet", "cb308f5ec0ea5927cb7668d99a8b661be301099f34a554298d35447ce4ac975f"),
    "ucdcr/output_data/all_documents.parquet": (
        f"{_UCDCR}/all_documents.parquet", "326ba8f7204967c2cffd2ffa2c5fb319fe4d18a084994c33a0779c84cd88934a"),
    "ecb_meta_analysis.xlsx": (
        f"{_LLMS}/data/ecb_meta_analysis.xlsx", "0dffed0185270a3ee64dd8a2a2b60e5c2f7f36b35f485f854fe0a7f13a07d72b"),
}
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
_UCDCR_SPLIT = {"val": "validation", "test": "test"}
_EVENT_TYPES = ("ACT", "NEG")
_MARK = re.compile(r"<m>(.*?)</m>", re.S)

ALIGNED_FEATURES = datasets.Features(
    {
        "mention_id": datasets.Value("string"),
        "doc_id": datasets.Value("string"),
        "topic": datasets.Value("string"),
        "sentence_id": datasets.Value("int32"),
        "cluster_id": datasets.Value("string"),
        "mention_type": datasets.Value("string"),
        **{
            f"{v}_{k}": feat
            for v in ("ecb", "meta_m", "meta_1")
            for k, feat in (
                ("text", datasets.Value("string")),
                ("sentence", datasets.Sequence(datasets.Value("string"))),
                ("token_start", datasets.Value("int32")),
                ("token_end", datasets.Value("int32")),
            )
        },
        "has_meta_m": datasets.Value("bool"),
        "has_meta_1": datasets.Value("bool"),
    }
)


class EcbMetaFormatError(ValueError):
    """A malformed ECB+META source file; the message names the file and record."""


@dataclass
class EcbMetaConfig(datasets.BuilderConfig):
    """``kind``: meta_m / meta_1 / aligned / documents; ``ecbplus_dir``: the ECB+ release folder;
    ``cluster_source`` (meta_m): "ecbplus" (default, ECB+ clusters) or "ucdcr" (uCDCR's chains);
    ``strict_release``: require all 982 ECB+ documents (off only for test fixtures)."""

    kind: str = "meta_m"
    ecbplus_dir: str | None = None
    strict_release: bool = True
    cluster_source: str = "ecbplus"


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
        import spacy

        _TOK = spacy.blank("en").tokenizer
    return _TOK


# --------------------------------------------------------------------------------------------
# rows


def meta_m_rows(
    mentions: list[dict], docs: dict, ecb_rows: list[dict], path: Path, *, cluster_source: str = "ecbplus",
    report: dict | None = None,
) -> tuple[list[dict], list[str]]:
    """META_m rows of one uCDCR split aligned to the ECB+ rows of the same split (in ECB+ order), and
    the ids of the ECB+ mentions that have no META_m version.

    ``cluster_source="ecbplus"``: the ECB+ cluster ids (the ECB+ partition). ``"ucdcr"``: uCDCR's
    chains, which merge a few within-document chains of different documents (see the card); a
    chain that is exactly one ECB+ cluster keeps the ECB+ id, a merged one is ``UCDCR_<chain>``.
    """
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
                f"{path}: mention {mid}: span {words} not found at tokens {numbers} of {m['doc']} sentence {m['sent_id']}"
            )
        offset = next(i for i, (s, _, _) in enumerate(doc) if s == int(m["sent_id"]))
        chains[ecb["mention_id"]] = str(m["coref_chain"])
        out[ecb["mention_id"]] = {
            "mention_id": ecb["mention_id"],
            "doc_id": m["doc"],
            "topic": str(m["topic"]),
            "subtopic": str(m["subtopic_id"]),
            "sentence_id": int(m["sent_id"]),
            "token_start": start,
            "token_end": end,
            "text": " ".join(words),  # tokens joined by spaces, as for ECB+ (uCDCR's tokens_str is detokenised)
            "head": str(m["mention_head"]),
            "head_lemma": str(m["mention_head_lemma"]).lower(),
            "pos": str(m["mention_head_pos"] or ""),
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
                "head_lemma": ecb_io.lookup_lemma(head),
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


# --------------------------------------------------------------------------------------------
# builder


class EcbMeta(datasets.GeneratorBasedBuilder):
    """ECB+META_m, ECB+META_1 (Dev_small), ECB+ aligned, META_m documents."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = EcbMetaConfig
    BUILDER_CONFIGS = [
        EcbMetaConfig(name="meta_m", version=VERSION, kind="meta_m",
                      description="Multi-word metaphoric triggers (uCDCR ECB+META_m), validated sentences."),
        EcbMetaConfig(name="meta_1", version=VERSION, kind="meta_1",
                      description="Single-word metaphoric triggers; offline the 277-mention Dev_small subset."),
        EcbMetaConfig(name="ecbplus_aligned", version=VERSION, kind="aligned",
                      description="Every ECB+ event mention with its META_m and META_1 versions."),
        EcbMetaConfig(name="documents", version=VERSION, kind="documents",
                      description="The ECB+META_m documents (uCDCR tokens)."),
    ]
    DEFAULT_CONFIG_NAME = "meta_m"

    def _info(self) -> datasets.DatasetInfo:
        features = {"aligned": ALIGNED_FEATURES, "documents": COREF_DOCUMENT_FEATURES}.get(
            self.config.kind, COREF_MENTION_FEATURES
        )
        return datasets.DatasetInfo(
            description=_DESCRIPTION, features=features, homepage=_HOMEPAGE, license=_LICENSE, citation=_CITATION
        )

    # sources -------------------------------------------------------------------------------
    def _needed(self, root: Path | None) -> list[str]:
        kind = self.config.kind
        need = []
        if kind in ("meta_m", "aligned", "documents"):
            need += [MENTIONS, DOCUMENTS] if kind != "documents" else [DOCUMENTS]
        if kind in ("meta_1", "aligned"):
            # the full ECB+META_1 in llms_coref's format when present, else the Dev_small sheet
            need.append(META1_PKL if root is not None and (root / META1_PKL).is_file() else XLSX)
        return need

    def _meta_files(self, dl_manager) -> dict[str, Path]:
        root = corpus_dir("ecbmeta", self.config.data_dir)
        need = self._needed(root)
        if root is not None:
            return dict(zip(need, require_files("ecbmeta", root, need)))
        out = {}
        for rel in need:
            url, sha = _URLS[rel]
            path = Path(dl_manager.download(url))
            ecb_io.verify_sha256(path, sha, label=url)
            out[rel] = path
        return out

    def _ecb_sources(self, dl_manager) -> ecb_io.EcbSources:
        candidates: list[Path] = []
        if self.config.ecbplus_dir:
            candidates.append(Path(self.config.ecbplus_dir).expanduser().resolve())
        else:
            env = corpus_dir("ecbplus", None)
            if env is not None:
                candidates.append(env)
            meta_root = corpus_dir("ecbmeta", self.config.data_dir)
            if meta_root is not None:
                candidates.append(meta_root.parent / "ecbplus")
        for c in candidates:
            if (c / ecb_io.XML_DIR).is_dir():
                return ecb_io.EcbSources.local(c, strict=self.config.strict_release)
        if self.config.data_dir or self.config.ecbplus_dir:
            looked = "\n".join(f"  - {c / ecb_io.XML_DIR}" for c in candidates)
            raise MissingDataError(
                "ecbmeta: the ECB+ release is needed for ids, cluster ids and original triggers; not found at:\n"
                f"{looked}\nPass ecbplus_dir=<the ecbplus folder> or set FIGBENCH_DATA_DIR."
            )
        return ecb_io.EcbSources.download(dl_manager)

    def _split_generators(self, dl_manager):
        # Everything is read, aligned and validated here, so a malformed file raises its own
        # ValueError (naming file and record) rather than a wrapped DatasetGenerationError.
        files = self._meta_files(dl_manager)
        ecb = self._ecb_sources(dl_manager)
        rows = build_rows(self.config.kind, files, ecb, cluster_source=self.config.cluster_source)
        # ``datasets`` cannot load an empty split: one (only possible with small fixtures) is left out
        return [datasets.SplitGenerator(name=s, gen_kwargs={"rows": r}) for s, r in rows.items() if r]

    def _generate_examples(self, rows: list[dict]):
        key = "mention_id" if self.config.kind != "documents" else "doc_id"
        for row in rows:
            yield row[key], row


def build_rows(kind: str, files: dict[str, Path], ecb: ecb_io.EcbSources, *, cluster_source: str = "ecbplus",
               report: dict | None = None) -> dict[str, list[dict]]:
    """Rows of every split of one config (``kind``: meta_m / meta_1 / aligned / documents).

    ``report`` (optional dict) receives what the card reports: ECB+ mentions without a META_m
    version per split, uCDCR chains that merge ECB+ clusters, repeated uCDCR documents.
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
                own, docs, ecb_rows, files[MENTIONS], cluster_source=cluster_source, report=report
            )
            report[f"meta_m_missing_{base}"] = missing
        if meta_1_records and full_meta_1:
            meta_1 = meta_1_rows([r for r in meta_1_records if r["split"] == base], ecb_rows, base)
            report[f"meta_1_missing_{base}"] = sorted({r["mention_id"] for r in ecb_rows} - {r["mention_id"] for r in meta_1})
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
