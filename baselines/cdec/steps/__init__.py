"""The cdec pipeline's shared steps, under the models and the pipeline: mention rows (``data``), the method
table and encoding defaults (``pipeline_defaults``), encoder inputs (``encoding``), saved components and the
embedding cache (``artifacts``), candidate filters (``filters``: same head lemma, the Lemma Heuristic, KNN over
``faiss_index``), predicted topics (``topics``), training-pair samples (``sampling``), clustering, the gold
oracle (``oracle``), scoring through the ``cdec`` task (``evaluation``) and paired comparisons of two records
(``compare``). Nothing here imports a model, the pipeline, the CLI or the specs."""
