"""The leaderboard service and its scoring: gold (public and private), hidden benchmarks, scoring against the
server's gold, the queue worker. Imports access, the store and the domain, never the UI or the commands."""
