"""figbench tasks in the harnesses researchers already run, and their outputs back as figbench predictions.

* :mod:`figbench.harnesses.questions`: a benchmark's split as multiple-choice questions, asked with the task's
  declared :class:`~figbench.tasks.base.Prompt`, and the answers' log-likelihoods turned back into the task's
  predictions (one place for both directions);
* :mod:`figbench.harnesses.lm_eval`: the lm-evaluation-harness task folder (``figbench lm-eval path``) and
  ``--log_samples`` output read back (``figbench submit --from-lm-eval``);
* :mod:`figbench.harnesses.mteb_tasks`: figbench's embedding-shaped tasks as ``mteb`` task classes
  (``figbench mteb tasks``).
"""
