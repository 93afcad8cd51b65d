"""Making harder corpora: the ECB+META metaphoric-paraphrasing pipeline (``figbench generate``).

:mod:`~figbench.generate.prompts` (Fig. 2), :mod:`~figbench.generate.source` (sentences and triggers of a
split), :mod:`~figbench.generate.run` (cached, concurrent prompting), :mod:`~figbench.generate.answers`
(JSON repair), :mod:`~figbench.generate.retag` (re-tagging and flags), :mod:`~figbench.generate.build`
(corrections, Hub-layout corpus), :mod:`~figbench.generate.card`, :mod:`~figbench.generate.review` (Gradio
review app), :mod:`~figbench.generate.pipeline` and :mod:`~figbench.generate.cli` (the command).
"""
