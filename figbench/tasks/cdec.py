"""Cross-document event coreference on ECB+, ECB+META and WEC-Eng (CoNLL F1)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot, Prompt
from figbench.tasks.kinds import ClusteringTask

_ECB = "ECB+ and ECB+META"
#: GPT_LH's pairwise question (the ECB+META paper's LLM baseline; figbench_baselines.cdec.models.llm asks it too): each
#: mention marked in its sentence (``<m>`` ... ``</m>``, 30 words of context either side)
PAIR_PROMPT = (
    "Two sentences from news articles each contain a marked event (between <m> and </m>).\n"
    "Sentence A: {a}\nSentence B: {b}\n"
    "Do the two marked events refer to the same real-world event? Answer Yes or No.\nAnswer:"
)
_COREF = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
_TITLES = {"mentions": "Mentions", "muc": "MUC", "bcub": "B-cubed", "ceafm": "CEAF-m", "ceafe": "CEAF-e",
           "blanc": "BLANC", "lea": "LEA"}

TASK = ClusteringTask(
    name="cdec",
    order=10,
    family="coreference",
    family_title="Coreference",
    title="Cross-document event coreference",
    description="Cross-document event coreference resolution: cluster the event mentions of a split "
                "(one cross-document document); CoNLL F1 = mean of MUC, B-cubed and CEAF-e F1.",
    headline="conll_f1",
    metrics=(Metric("conll_f1", "CoNLL F1"),
             *(Metric(f"{m}_{s}", f"{_TITLES[m]} {s[0].upper() if s != 'f1' else 'F1'}")
               for m in _COREF for s in ("recall", "precision", "f1")),
             Metric("candidate_gold_pair_recall", "Gold-pair recall of the candidate filter")),
    columns=("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "ceafm_f1", "lea_f1", "blanc_f1"),
    benchmarks=(
        Benchmark("cdec", "ecbplus", "events", "test", "ECB+", _ECB, gold=PUBLIC),
        Benchmark("cdec", "ecbmeta", "meta_1", "dev_small", "ECB+META_1 (dev_small)", _ECB, gold=PUBLIC),
        Benchmark("cdec", "ecbmeta", "meta_m", "test", "ECB+META_m", _ECB, gold=PUBLIC),
        Benchmark("cdec", "wec_eng", "events", "test", "WEC-Eng", "WEC-Eng", gold=PUBLIC),
    ),
    plots=(
        Plot("paired", "Robustness to metaphor: CoNLL F1 on ECB+ vs ECB+META", "conll_f1",
             ("cdec/ecbplus/events/test", "cdec/ecbmeta/meta_m/test", "cdec/ecbmeta/meta_1/dev_small")),
        Plot("distribution", "CoNLL F1 of every submission", "conll_f1"),
    ),
    predictions_doc="clusters of mention ids for the split (every mention exactly once, singletons included)",
    resample_unit="topics",
    group_column="topic",
    # GPT_LH's setting (ECB+ and ECB+META); WEC-Eng's LH would need its training split's lemma pairs
    prompt=Prompt(PAIR_PROMPT, ("No", "Yes"), benchmarks=("cdec/ecbplus/events/test", "cdec/ecbmeta/meta_1/dev_small",
                                                         "cdec/ecbmeta/meta_m/test")),
)
