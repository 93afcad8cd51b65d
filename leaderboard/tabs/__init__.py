"""The leaderboard page, one module per tab (:func:`figbench_leaderboard.app.build_app` puts them together)."""
