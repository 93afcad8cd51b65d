"""figbench's command modules: each registers its sub-commands of ``figbench`` (``figbench.cli``).

Commands sit above the library core (``figbench.corpora``, ``figbench.tasks``, ``figbench.scoring``,
``figbench.results``, ...): the core never imports them (``tests/test_architecture.py``).
"""
