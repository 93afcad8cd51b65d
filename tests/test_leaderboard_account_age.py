"""Issue 32: hidden benchmarks may require a minimum Hugging Face account age (``serve --min-account-age-days``).
The age is the Hub's ``createdAt`` from ``/api/users/NAME/overview`` (read through ``HfApi.get_user_overview``,
whose ``User`` keeps unknown keys), served here over HTTP on 127.0.0.1; an age the Hub does not confirm is
refused (fails closed), and issued tokens are not asked."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from figbench_leaderboard.access import identity
from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy, UnregisteredError
from figbench_leaderboard.store import tokens

from tests.http_post import send_json
from tests.test_leaderboard_hidden_probing import (  # noqa: F401  (hidden_benchmark: an autouse fixture)
    LABELS,
    _gold,
    _local,
    _sub,
    hidden_benchmark,
)
from tests.test_leaderboard_hub import online  # noqa: F401  (online: a fixture)


def _iso(days_ago: float) -> str:
    return datetime.fromtimestamp(time.time() - days_ago * 86400, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


class Overview:
    """``/api/users/NAME/overview`` for a few accounts: ``created`` maps a name to its createdAt (None: no date)."""

    def __init__(self, created: dict[str, str | None]) -> None:
        self.asked: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(handler):
                parts = handler.path.strip("/").split("/")
                name = parts[2] if parts[:2] == ["api", "users"] and parts[3:] == ["overview"] else None
                self.asked.append(name)
                if name in created:
                    body = {"user": name, "fullname": name, "avatarUrl": "", "type": "user", "isPro": False}
                    if created[name] is not None:
                        body["createdAt"] = created[name]
                    code = 200
                else:
                    code, body = 404, {"error": "User not found"}
                send_json(handler, code, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()   # gone: a request is refused, not left waiting


def test_min_account_age_admits_old_accounts_and_refuses_young_undated_and_unknown_ones(online, tmp_path,  # noqa: F811
                                                                                        monkeypatch):
    hub = Overview({"olda": _iso(400), "younga": _iso(3), "nodate": None})
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setattr(identity, "_whoami_cache", {})
    try:
        board = _local(tmp_path, policy=HiddenSplitPolicy(min_account_age_days=30))
        ids = list(_gold()["labels"])

        def sub(name: str, k: int) -> dict:
            return _sub({i: LABELS[(j + k) % 5] for j, i in enumerate(ids)}, name)

        assert board.submit(sub("old-1", 0), account="hf:olda")["status"] == "PENDING"
        with pytest.raises(UnregisteredError, match="'younga' is 3 days old.*at least 30 days"):
            board.submit(sub("young-1", 1), account="hf:younga")
        with pytest.raises(UnregisteredError, match="did not confirm when it was created"):
            board.submit(sub("nodate-1", 2), account="hf:nodate")
        with pytest.raises(UnregisteredError, match="did not confirm"):   # the Hub does not know it
            board.submit(sub("ghost-1", 3), account="hf:ghost")
        assert {"olda", "younga", "nodate", "ghost"} <= set(hub.asked)
        token = tokens.issue(board.store, "alice")[1]   # an issued token is the maintainer's own: not asked
        asked = len(hub.asked)
        assert board.submit(sub("alice-1", 4), account=token)["status"] == "PENDING"
        assert len(hub.asked) == asked
        assert [r["model_name"] for r in board.store.list()] == ["old-1", "alice-1"]   # nothing else stored
    finally:
        hub.close()
    monkeypatch.setattr(identity, "_whoami_cache", {})
    monkeypatch.setattr(identity, "_OVERVIEW_TIMEOUT_S", 2.0)
    board2 = _local(tmp_path / "b", policy=HiddenSplitPolicy(min_account_age_days=30))
    with pytest.raises(UnregisteredError, match="did not confirm"):   # the Hub is gone: refused, not admitted
        board2.submit(_sub({i: "TEAM" for i in ids}, "old-2"), account="hf:olda")
