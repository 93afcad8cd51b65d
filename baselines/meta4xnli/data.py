"""Meta4XNLI rows for the baselines, read through the ``meta4xnli`` builder.

Detection corpora (names used by ``--train``/``--test``): ``en``/``es`` (Meta4XNLI detection splits),
``vua`` (VUA-20, English), ``cometa`` (CoMeta, Spanish). Rows become
``{"id", "tokens", "tags" (tag strings), "source"}``; interpretation rows keep the builder's fields
with ``gold_label`` as a string. Both come as :class:`~figbench_baselines.common.splits.Rows`, which
keep the split they were read from (gold is read from it). Label names come from the builder's
``ClassLabel`` features.
"""

from __future__ import annotations

from typing import Any

from figbench_baselines.common.splits import Rows, load_split

from figbench.labels import decode_labels, label_decoder

CORPUS_CONFIG = {"en": "detection_en", "es": "detection_es", "vua": "vua", "cometa": "cometa"}
CORPUS_LANG = {"en": "en", "es": "es", "vua": "en", "cometa": "es"}
#: per-source parts of the Meta4XNLI detection splits (``source`` ends with _prem / _hyp)
PARTS = {"premises": "_prem", "hypotheses": "_hyp"}
#: the per-source detection sets: builder configs ``<source>_<lang>`` with splits ``premise`` / ``hypothesis``
SOURCES = ("xnli_dev", "xnli_test", "esxnli")
SOURCE_SPLITS = ("premise", "hypothesis")


def detection_rows(ds, where: str) -> Rows:
    """Rows of a detection split with tag names (not ids); a token/tag count mismatch names the row."""
    rows = []
    decode = label_decoder(ds, "tags")
    cols = ds.select_columns([c for c in ("id", "tokens", "tags", "source") if c in ds.column_names])[:]
    sources = cols.get("source") or [""] * len(cols["id"])  # one columnar read, not a formatted row each
    for i, tokens, tags, source in zip(cols["id"], cols["tokens"], cols["tags"], sources):
        if len(tokens) != len(tags):
            raise ValueError(f"{where} row {i}: {len(tokens)} tokens but {len(tags)} tags")
        rows.append({"id": i, "tokens": tokens, "tags": decode(tags), "source": source})
    return Rows.of(ds, rows)


def load_detection(corpus: str, split: str, data_dir: str | None, *, part: str | None = None) -> Rows:
    """Sentences of ``corpus`` (en | es | vua | cometa) / ``split`` with string tags.

    A split the corpus lacks (CoMeta has no validation) is a clear error.
    ``part`` (premises | hypotheses) keeps only Meta4XNLI sentences of that source side.
    """
    check_corpus(corpus, part)
    rows = detection_rows(load_split("meta4xnli", CORPUS_CONFIG[corpus], split, data_dir),
                          f"meta4xnli/{corpus}/{split}")
    if part is not None:
        rows = rows.where(lambda r: r["source"].endswith(PARTS[part]))
    if not len(rows):
        raise ValueError(f"meta4xnli/{corpus}/{split}{'/' + part if part else ''}: the split is empty")
    return rows


def check_corpus(corpus: str, part: str | None = None) -> None:
    """A known detection corpus, and a source side only for the Meta4XNLI corpora (before loading anything)."""
    if corpus not in CORPUS_CONFIG:
        raise ValueError(f"unknown detection corpus {corpus!r}; choose from {sorted(CORPUS_CONFIG)}")
    if part is not None:
        if part not in PARTS:
            raise ValueError(f"unknown part {part!r}; choose from {sorted(PARTS)}")
        if corpus not in ("en", "es"):
            raise ValueError(f"--part applies to the Meta4XNLI corpora (en, es), not {corpus!r}")


def load_source_sets(lang: str, data_dir: str | None) -> dict[tuple[str, str], Rows]:
    """The per-source detection sets of ``lang``: (config, split) -> rows, e.g. ("xnli_dev_en", "premise")."""
    out = {}
    for source in SOURCES:
        config = f"{source}_{lang}"
        for split in SOURCE_SPLITS:
            out[(config, split)] = detection_rows(load_split("meta4xnli", config, split, data_dir),
                                                  f"meta4xnli/{config}/{split}")
    return out


def load_nli(split: str, data_dir: str | None) -> Rows:
    """Interpretation pairs of ``split`` with string gold labels (an unlabelled split is an error)."""
    ds = load_split("meta4xnli", "interpretation", split, data_dir)
    try:
        labels = decode_labels(ds, "gold_label", ds["gold_label"])
    except ValueError as e:
        raise ValueError(f"meta4xnli/interpretation/{split}: {e} (unlabelled split?)") from None
    rows: list[dict[str, Any]] = [{**r, "gold_label": lab} for r, lab in zip(ds, labels)]
    return Rows.of(ds, rows)
