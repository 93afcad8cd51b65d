"""Cross-document event coreference baselines (``figbench baseline cdec``), in layers (ARCHITECTURE.md):

* ``steps/``: the shared steps (mention rows, the method table, encoder inputs, saved components, candidate
  filters and the FAISS index, predicted topics, sampling, clustering, the oracle, evaluation through the
  ``cdec`` task, paired comparisons of two records);
* ``models/``: the pair scorers that train or load a model (bi-encoder, WiSE-FT, cross-encoders, WEC pairwise,
  LLM);
* ``pipeline`` (filter -> score -> cluster -> record) and ``cli`` (``figbench baseline cdec``);
* ``specs/``: the runs of the reproduction tables in ``baselines/README.md`` and the tables computed from
  several records;
* ``reproduce`` (``python -m figbench_baselines.cdec.reproduce``): trains the specs' models and runs the specs.
"""

ORDER = 10  #: position among the families (``figbench baseline``, quickstart, the tables)
