"""The leaderboard's vocabulary, pure rules without storage or I/O: the benchmarks (from the task declarations),
the submission envelope, model names and their look-alike keys, and the release rule. Imports no other layer."""
