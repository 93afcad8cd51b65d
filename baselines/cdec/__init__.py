"""Cross-document event coreference baselines (``figbench baseline cdec``).

Modules: ``filters`` (same-head-lemma, Lemma Heuristic, KNN), ``faiss_index``, ``biencoder`` (triplet
loss), ``crossencoder`` (CE_LH / CE_KNN), ``wec_pairwise``, ``llm`` (yes/no scorer, disk cache),
``clustering`` (connected components, Held et al.'s greedy agglomeration, average-link), ``topics``
(predicted topics: the split's documents clustered before pairing, as Barhom et al. 2019), ``oracle``,
``evaluation`` (scores through the ``cdec`` task), ``data``, ``pipeline``, ``cli`` and ``specs`` (the runs of the
reproduction tables in ``baselines/README.md``).
"""

ORDER = 10  #: position among the families (``figbench baseline``, quickstart, the tables)
