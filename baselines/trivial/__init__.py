"""Trivial baselines of any task, as its kind offers them (majority, random, prior; all singletons, one
cluster per topic): ``figbench baseline trivial``; a spec line per run (:func:`.specs.trivial_spec`)."""

ORDER = 90  #: position among the families (``figbench baseline``, quickstart, the tables)
