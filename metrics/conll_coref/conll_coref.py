"""conll_coref: CoNLL coreference scores (MUC, B-cubed, CEAF-m, CEAF-e, BLANC, LEA, CoNLL F1).

A thin `evaluate` wrapper over :mod:`figbench.scoring.coref` (requires the `figbench` package);
see the metric card (README.md).
"""

import evaluate

import datasets
from figbench.scoring.conll_io import score_conll
from figbench.scoring.coref import bootstrap_coref, check_documents, evaluate_coref

_DESCRIPTION = """\
Coreference scores equal to the official CoNLL reference scorer v8.01 (`scorer.pl all`, Pradhan et
al. 2014) for MUC, B-cubed, CEAF-m, CEAF-e and BLANC (predicted-mention variant), plus LEA (Moosavi &
Strube 2016), mention detection and the CoNLL F1 (mean of MUC, B-cubed and CEAF-e F1). Each example
is one document: a list of clusters, each a list of mention-id strings. For cross-document
coreference pass the whole corpus as one document. Numerators and denominators are summed over
documents. CoNLL-2011/2012 key/response files can be scored with `key_file=` / `response_file=`.
"""

_CITATION = """\
@inproceedings{pradhan-etal-2014-scoring,
  title = {Scoring Coreference Partitions of Predicted Mentions: A Reference Implementation},
  author = {Pradhan, Sameer and Luo, Xiaoqiang and Recasens, Marta and Hovy, Eduard and Ng, Vincent and Strube, Michael},
  booktitle = {Proceedings of ACL 2014 (Volume 2: Short Papers)},
  year = {2014},
  pages = {30--35}
}
@inproceedings{luo-etal-2014-extension,
  title = {An Extension of {BLANC} to System Mentions},
  author = {Luo, Xiaoqiang and Pradhan, Sameer and Recasens, Marta and Hovy, Eduard},
  booktitle = {Proceedings of ACL 2014 (Volume 2: Short Papers)},
  year = {2014},
  pages = {24--29}
}
@inproceedings{moosavi-strube-2016-coreference,
  title = {Which Coreference Evaluation Metric Do You Trust? A Proposal for a Link-based Entity Aware Metric},
  author = {Moosavi, Nafise Sadat and Strube, Michael},
  booktitle = {Proceedings of ACL 2016 (Volume 1: Long Papers)},
  year = {2016},
  pages = {632--642}
}
"""  # noqa: E501 (a verbatim BibTeX entry)

_KWARGS = """\
Args:
    predictions: list of documents; a document is a list of clusters; a cluster a list of mention ids
        (strings). One document for cross-document coreference.
    references: list of gold documents, aligned with `predictions`.
    remove_singletons: (default False) drop one-mention clusters from both sides before scoring.
    per_document: (default False) also return `per_document`, one dict of scores per document.
    n_resamples: (default 0 = no intervals; figbench's shared default elsewhere is 1000) when > 0, also
        return `confidence_intervals` (percentile bootstrap over documents, `groups`, or for a single
        document the connected groups of overlapping clusters), each with `n_units` and, when the
        interval is degenerate, a `warning`; see the card's "Bootstrap" section.
    level, seed: bootstrap confidence level (0.95) and seed (0).
    groups: (optional) dict mention id -> resampling unit (e.g. topic) for the bootstrap; unit: its name.
    key_file, response_file: score two CoNLL-2011/2012 files instead (pass empty `predictions` and
        `references`).
Returns:
    mentions_recall|precision|f1, muc_*, bcub_*, ceafm_*, ceafe_*, blanc_*, lea_*, conll_f1
    (fractions in [0, 1]).
Example:
    >>> import evaluate, figbench
    >>> m = evaluate.load(figbench.metric_path("conll_coref"))
    >>> m.compute(predictions=[[["a", "b"], ["c"]]], references=[[["a", "b"], ["c"]]])["conll_f1"]
    1.0
"""

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Sequence(datasets.Sequence(datasets.Value("string"))),
        "references": datasets.Sequence(datasets.Sequence(datasets.Value("string"))),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS)
class ConllCoref(evaluate.Metric):
    """The CoNLL coreference metrics (reference scorer v8.01) and LEA."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS,
            features=_FEATURES,
            reference_urls=["https://github.com/conll/reference-coreference-scorers"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score `predictions` against `references` (see below).

        Plain Python inputs in a single process are scored directly: the Arrow round trip of
        `evaluate.Metric.compute` would only copy them (and turn non-string ids into strings);
        `evaluate_coref` checks them itself. Otherwise ids are checked before Arrow encoding.
        """
        buffered = getattr(self, "writer", None) is not None or getattr(self, "buf_writer", None) is not None
        if predictions is None and references is None and not buffered:
            if kwargs.get("key_file") is not None or kwargs.get("response_file") is not None:
                return self._compute([], [], **kwargs)
            raise ValueError("conll_coref.compute() needs predictions= and references= (lists of documents; a "
                             "document is a list of clusters of mention ids), or key_file= and response_file= "
                             "(CoNLL files), or examples added with add()/add_batch() first; got none of them")
        if (predictions is None) != (references is None) and not buffered:
            missing = "references" if references is None else "predictions"
            raise ValueError(f"conll_coref.compute(): {missing}= is missing (pass predictions= and references=, "
                             "aligned lists of documents)")
        if predictions is not None and references is not None and self.num_process == 1 and not buffered:
            return self._compute(predictions, references, **kwargs)
        # check ids before Arrow encoding would silently turn non-string ids into strings
        if predictions is not None or references is not None:
            check_documents(predictions if predictions is not None else [],
                            references if references is not None else [])
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, references, remove_singletons=False, per_document=False, n_resamples=0,
                 level=0.95, seed=0, groups=None, unit=None, key_file=None, response_file=None):
        if key_file is not None or response_file is not None:
            if key_file is None or response_file is None:
                raise ValueError("pass both key_file and response_file to score CoNLL files")
            if predictions or references:
                raise ValueError("pass either predictions/references or key_file/response_file, not both")
            if n_resamples:
                raise ValueError("bootstrap intervals need predictions/references (read the files with "
                                 "figbench.scoring.conll_io.read_conll)")
            return score_conll(key_file, response_file, remove_singletons=remove_singletons,
                               per_document=per_document)
        result = evaluate_coref(predictions, references, remove_singletons=remove_singletons,
                                per_document=per_document)
        if n_resamples:
            result["confidence_intervals"] = bootstrap_coref(
                predictions, references, n_resamples=n_resamples, level=level, seed=seed,
                remove_singletons=remove_singletons, groups=groups, unit=unit)
        return result
