"""Who may do what: identities, HTTP request limits, the API allow-list, the hidden-benchmark policy, and redaction
of what a message may reveal. Imports the store and the domain, never scoring, the UI or the commands."""
