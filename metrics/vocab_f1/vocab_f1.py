"""vocab_f1: metaphor detection F1 split into in- and out-of-vocabulary tokens (Meta4XNLI).

A thin `evaluate` wrapper over :func:`figbench.scoring.vocab.vocab_scores`; see README.md.
"""

import evaluate

import datasets
from figbench.scoring.vocab import vocab_scores

_DESCRIPTION = """\
Token-level metaphor detection precision/recall/F1 overall and split by vocabulary, as in Meta4XNLI:
a test token is in-vocabulary when its lowercased form (or, with use_lemma=True, its spaCy lookup
lemma) was labelled metaphorical (tag other than O) somewhere in the training split, and
out-of-vocabulary otherwise. A token counts as a metaphor iff its tag is not O. Tags must be O,
B-METAPHOR or I-METAPHOR (or the label ids 0, 1, 2); any other tag is a ValueError.
"""

_CITATION = """\
@inproceedings{sanchez-bayona-agerri-2025-meta4xnli,
  title = {{Meta4XNLI}: A Crosslingual Parallel Corpus for Metaphor Detection and Interpretation},
  author = {Sanchez-Bayona, Elisa and Agerri, Rodrigo},
  year = {2024},
  eprint = {2404.07053},
  archivePrefix = {arXiv}
}
"""

_KWARGS = """\
Args:
    predictions: list of predicted tag sequences: "O", "B-METAPHOR", "I-METAPHOR", or the ids 0, 1, 2
        (0 = O); any other tag raises ValueError.
    references: list of gold tag sequences, same lengths.
    tokens: list of test token sequences (the words the tags belong to).
    train_tokens: list of training token sequences.
    train_tags: list of training tag sequences.
    use_lemma: (default False) compare lowercased spaCy lookup lemmas instead of lowercased forms.
    lang: (default "en") "en" or "es", the lemmatizer language.
Returns: precision, recall, f1, in_vocab_precision, in_vocab_recall, in_vocab_f1,
    out_vocab_precision, out_vocab_recall, out_vocab_f1, vocab_size, n_tokens, n_in_vocab_tokens,
    n_out_vocab_tokens, n_{all,in_vocab,out_vocab}_{gold,pred,correct}.
Example:
    >>> import evaluate, figbench
    >>> m = evaluate.load(figbench.metric_path("vocab_f1"))
    >>> m.compute(predictions=[["B-METAPHOR", "O"]], references=[["B-METAPHOR", "O"]],
    ...           tokens=[["grasp", "it"]], train_tokens=[["grasp"]], train_tags=[["B-METAPHOR"]])["in_vocab_f1"]
    1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS)
class VocabF1(evaluate.Metric):
    """Metaphor detection F1, overall and split into in-/out-of-vocabulary test tokens."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS,
            features=[
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
            ],
            reference_urls=["https://github.com/elisanchez-beep/meta4xnli"],
        )

    def _compute(self, predictions, references, tokens=None, train_tokens=None, train_tags=None,
                 use_lemma=False, lang="en"):
        for name, value in (("tokens", tokens), ("train_tokens", train_tokens), ("train_tags", train_tags)):
            if value is None:
                raise ValueError(f"vocab_f1: the keyword argument {name}= is required")
        return vocab_scores(train_tokens, train_tags, tokens, references, predictions,
                            use_lemma=use_lemma, lang=lang)
