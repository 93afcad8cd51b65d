"""Cross-document event coreference baselines (``figbench baseline cdec``).

Modules: ``filters`` (same-head-lemma, Lemma Heuristic, KNN), ``faiss_index``, ``biencoder`` (triplet
loss), ``crossencoder`` (CE_LH / CE_KNN), ``wec_pairwise``, ``llm`` (yes/no scorer, disk cache),
``clustering`` (connected components, greedy, average-link), ``oracle``, ``evaluation``, ``data``,
``pipeline`` and ``cli``. See ``baselines/README.md`` for the reproduction table.
"""
