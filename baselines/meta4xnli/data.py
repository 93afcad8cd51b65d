"""Meta4XNLI rows for the baselines, read through the ``meta4xnli`` builder.

Detection corpora (names used by ``--train``/``--test``): ``en``/``es`` (Meta4XNLI detection splits),
``vua`` (VUA-20, English), ``cometa`` (CoMeta, Spanish). Rows become
``{"id", "tokens", "tags" (tag strings), "source"}``; interpretation rows keep the builder's fields
with ``gold_label`` as a string.
"""

from __future__ import annotations

from typing import Any

CORPUS_CONFIG = {"en": "detection_en", "es": "detection_es", "vua": "vua", "cometa": "cometa"}
CORPUS_LANG = {"en": "en", "es": "es", "vua": "en", "cometa": "es"}
#: per-source parts of the Meta4XNLI detection splits (``source`` ends with _prem / _hyp)
PARTS = {"premises": "_prem", "hypotheses": "_hyp"}


def _names(ds, column: str):
    feat = ds.features[column]
    inner = getattr(feat, "feature", feat)
    return getattr(inner, "names", None)


def load_detection(corpus: str, split: str, data_dir: str | None, *, part: str | None = None) -> list[dict[str, Any]]:
    """Sentences of ``corpus`` (en | es | vua | cometa) / ``split`` with string tags.

    A split the corpus lacks (CoMeta has no validation) is a clear error.
    ``part`` (premises | hypotheses) keeps only Meta4XNLI sentences of that source side.
    """
    from figbench import load_dataset

    if corpus not in CORPUS_CONFIG:
        raise ValueError(f"unknown detection corpus {corpus!r}; choose from {sorted(CORPUS_CONFIG)}")
    dd = load_dataset("meta4xnli", CORPUS_CONFIG[corpus], data_dir=data_dir)
    if split not in dd:
        raise ValueError(f"meta4xnli/{CORPUS_CONFIG[corpus]} has no {split!r} split (splits: {sorted(dd)})")
    ds = dd[split]
    names = _names(ds, "tags")
    rows = []
    for r in ds:
        if len(r["tokens"]) != len(r["tags"]):
            raise ValueError(f"meta4xnli/{corpus}/{split} row {r['id']}: {len(r['tokens'])} tokens but "
                             f"{len(r['tags'])} tags")
        tags = [names[t] if names and isinstance(t, int) else t for t in r["tags"]]
        rows.append({"id": r["id"], "tokens": list(r["tokens"]), "tags": tags, "source": r.get("source", "")})
    if part is not None:
        if part not in PARTS:
            raise ValueError(f"unknown part {part!r}; choose from {sorted(PARTS)}")
        if corpus not in ("en", "es"):
            raise ValueError(f"--part applies to the Meta4XNLI corpora (en, es), not {corpus!r}")
        rows = [r for r in rows if r["source"].endswith(PARTS[part])]
    if not rows:
        raise ValueError(f"meta4xnli/{corpus}/{split}{'/' + part if part else ''}: the split is empty")
    return rows


def load_nli(split: str, data_dir: str | None) -> list[dict[str, Any]]:
    """Interpretation pairs of ``split`` with string gold labels."""
    from figbench import load_dataset

    ds = load_dataset("meta4xnli", "interpretation", split=split, data_dir=data_dir)
    names = _names(ds, "gold_label")
    rows = []
    for r in ds:
        r = dict(r)
        if names and isinstance(r["gold_label"], int):
            if not 0 <= r["gold_label"] < len(names):
                raise ValueError(f"meta4xnli/interpretation/{split} row {r['id']}: gold_label {r['gold_label']} "
                                 "is not a label (unlabelled split?)")
            r["gold_label"] = names[r["gold_label"]]
        rows.append(r)
    return rows
