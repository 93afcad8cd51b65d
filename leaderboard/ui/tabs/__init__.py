"""The leaderboard page, one module per tab (:func:`figbench_leaderboard.ui.app.build_app` puts them together)."""
