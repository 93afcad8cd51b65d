"""Where submissions live: the SQLite store (rows, leases, limits counted in its transactions, quarantine), its Hub
mirror, and the synthetic filler for benchmarks. Imports only :mod:`figbench_leaderboard.domain`."""
