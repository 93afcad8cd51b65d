"""span_f1: strict BIO span/token P/R/F1 (metaphor detection) and ePiC span-overlap scores.

A thin `evaluate` wrapper over :mod:`figbench.scoring.spans`; see the metric card (README.md).
"""

import evaluate

import datasets
from figbench.scoring.spans import bio_span_scores, span_overlap_scores

_DESCRIPTION = """\
Two span metrics. Config `bio` (default): exact-match span precision/recall/F1 of BIO-tagged
sequences, micro over the corpus, identical to seqeval with mode="strict", scheme=IOB2; plus binary
token-level precision/recall/F1 (a token is positive iff its tag is not O) and tag accuracy.
Config `epic`: ePiC alignment, token-overlap precision/recall/F1 (SQuAD-style, per example, averaged
over examples) and exact match between predicted and gold text spans.
"""

_CITATION = """\
@inproceedings{ghosh-srivastava-2022-epic,
  title = {{ePiC}: Employing Proverbs in Context as a Benchmark for Abstract Language Understanding},
  author = {Ghosh, Sayan and Srivastava, Shashank},
  booktitle = {Proceedings of ACL 2022},
  year = {2022},
  pages = {3989--4004}
}
@misc{seqeval,
  title = {{seqeval}: A Python framework for sequence labeling evaluation},
  author = {Nakayama, Hiroki},
  year = {2018},
  url = {https://github.com/chakki-works/seqeval}
}
"""

_KWARGS = """\
Args (config `bio`):
    predictions: list of tag sequences, e.g. [["B-METAPHOR", "I-METAPHOR", "O"]].
    references: list of gold tag sequences of the same lengths.
Args (config `epic`):
    predictions: list of spans, each a string, a list of token strings, or a [start, end]
        character span over `passages[i]`.
    references: list of gold spans in the same form.
    passages: (optional) list of passage strings, needed for character spans.
    normalize: (default True) SQuAD normalisation of text spans.
Returns (`bio`): precision, recall, f1 (strict span), token_precision, token_recall, token_f1,
    accuracy, counts (n_gold_spans, n_pred_spans, n_correct_spans, n_gold_tokens, n_pred_tokens,
    n_correct_tokens, n_sentences, n_tokens) and per_type.
Returns (`epic`): precision, recall, f1, exact_match (means over examples), micro_precision,
    micro_recall, micro_f1, n_examples.
Example:
    >>> import evaluate, figbench
    >>> m = evaluate.load(figbench.metric_path("span_f1"))
    >>> m.compute(predictions=[["B-METAPHOR", "O"]], references=[["B-METAPHOR", "O"]])["f1"]
    1.0
"""

_BIO = datasets.Features(
    {
        "predictions": datasets.Sequence(datasets.Value("string")),
        "references": datasets.Sequence(datasets.Value("string")),
    }
)
_EPIC = [
    datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
    datasets.Features(
        {
            "predictions": datasets.Sequence(datasets.Value("string")),
            "references": datasets.Sequence(datasets.Value("string")),
        }
    ),
    datasets.Features(
        {
            "predictions": datasets.Sequence(datasets.Value("int64")),
            "references": datasets.Sequence(datasets.Value("int64")),
        }
    ),
]


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS)
class SpanF1(evaluate.Metric):
    """Strict BIO span F1 (config `bio`) and ePiC span overlap (config `epic`)."""

    def _info(self):
        if self.config_name not in ("default", "bio", "epic"):
            raise ValueError(f"span_f1: unknown config {self.config_name!r}; use 'bio' or 'epic'")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS,
            features=_EPIC if self.config_name == "epic" else _BIO,
            reference_urls=["https://github.com/chakki-works/seqeval", "https://aclanthology.org/2022.acl-long.276/"],
        )

    def _compute(self, predictions, references, passages=None, normalize=True):
        if self.config_name == "epic":
            predictions = [tuple(p) if _is_pair(p) else p for p in predictions]
            references = [tuple(r) if _is_pair(r) else r for r in references]
            return span_overlap_scores(predictions, references, passages=passages, normalize=normalize)
        return bio_span_scores(references, predictions)


def _is_pair(x) -> bool:
    return isinstance(x, (list, tuple)) and len(x) == 2 and all(isinstance(v, int) for v in x)
