"""The cdec pair scorers that load or train a model: the triplet-loss bi-encoder (``biencoder``) and its
WiSE-FT mix with the untrained encoder (``wise_ft``), the cross-encoders CE_LH / CE_KNN (``crossencoder``),
WEC's pairwise MLP (``wec_pairwise``) and the LLM yes/no scorer (``llm``). They use the shared steps
(:mod:`figbench_baselines.cdec.steps`), never the pipeline, the CLI or the specs."""
