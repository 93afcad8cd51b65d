"""Issue 33: the served app answers only the routes leaderboard/README.md (Security) lists. Every route the app
declares (Gradio's and the sign-in routes, as served with Hugging Face sign-in configured) is requested over
HTTP; those the allow-list refuses answer 404 before Gradio sees them, e.g. the run-history routes that act on
Hugging Face buckets with the server's HF_TOKEN, /monitoring/summary, the reverse proxy."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures" / "leaderboard"
OAUTH = {"SPACE_ID": "figbench/leaderboard-test", "SYSTEM": "spaces", "OAUTH_CLIENT_ID": "test-client",
         "OAUTH_CLIENT_SECRET": "test-secret", "OAUTH_SCOPES": "openid profile",
         "OPENID_PROVIDER_URL": "http://127.0.0.1:9", "HF_TOKEN": "hf_the_maintainers_token"}


def documented_routes() -> set[tuple[str, str]]:
    """``(method, route template)`` of every route the README's Security section lists."""
    text = (ROOT / "leaderboard" / "README.md").read_text()
    section = text.split("\n## Security\n", 1)[1].split("\n## ", 1)[0]
    return {(m, p) for m, p in re.findall(r"^- `(GET|POST) (\S+)`", section, flags=re.M)}


#: run with the sign-in environment in a fresh interpreter (Gradio reads it at import): the app's routes as JSON
_DECLARED = """
import json, sys
from figbench_leaderboard.scoring.board import Leaderboard
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui.app import build_app

out = set()
def walk(routes, prefix):
    for r in routes:
        if hasattr(r, "original_router"):
            walk(r.original_router.routes, prefix + r.include_context.prefix)
        elif hasattr(r, "endpoint") or hasattr(r, "methods"):
            out.update((m, prefix + r.path) for m in (getattr(r, "methods", None) or {"GET"}) if m != "HEAD")
        elif hasattr(r, "routes"):
            walk(r.routes, prefix + getattr(r, "path", ""))
walk(build_app(Leaderboard(Store(sys.argv[1]), JsonGoldProvider(sys.argv[2]))).app.routes, "")
print(json.dumps(sorted(out)))
"""


def declared_routes(tmp: Path) -> Callable[[], set[tuple[str, str]]]:
    """Starts listing the routes of the app as ``serve`` builds it with sign-in configured (included routers walked)
    in a fresh interpreter; returns the function that waits for them: ``(method, template)`` each. The listing
    runs while the test starts its board (the two used to take 5 s and more each, one after the other)."""
    import os
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _DECLARED, str(tmp / "built"), str(FIX / "gold.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **OAUTH})

    def wait() -> set[tuple[str, str]]:
        try:
            out, err = proc.communicate(timeout=300)
        finally:
            proc.kill()
        assert proc.returncode == 0, (proc.returncode, err[-4000:])
        return {tuple(r) for r in json.loads(out.strip().splitlines()[-1])}
    return wait


def _concrete(template: str) -> str:
    """A path the template matches (an API name: a documented one)."""
    template = template.replace("{api_name}", "submission_status")
    return re.sub(r"\{[^}:]+:path\}", "x/y", re.sub(r"\{[^}:]+\}", "x", template))


def test_served_routes_are_the_documented_allow_list(tmp_path):
    from figbench_leaderboard.screenshots import serving

    pytest.importorskip("authlib", reason="gradio[oauth] (authlib) is needed for Hugging Face sign-in")
    listed = declared_routes(tmp_path)
    answered = set()
    with serving(tmp_path / "store", gold_json=FIX / "gold.json", env=OAUTH, cwd=tmp_path) as srv:
        routes = listed()
        for method, template in sorted(routes):
            conn = http.client.HTTPConnection("127.0.0.1", srv["port"], timeout=60)
            try:
                conn.request(method, _concrete(template), body=b"{}" if method == "POST" else None,
                             headers={"Content-Type": "application/json"})
                r = conn.getresponse()
                # (no body read: the event streams answered would never end)
                if r.getheader("x-figbench-refused") != "route":
                    answered.add((method, template))
            finally:
                conn.close()
    documented = documented_routes()
    assert documented, "leaderboard/README.md's Security section lists no routes"
    for bad in ("/monitoring/summary", "/gradio_api/run-history/buckets", "/gradio_api/proxy={url_path:path}"):
        assert ("GET", bad) in routes and ("GET", bad) not in answered, bad
    assert answered == documented & routes, (sorted(answered - documented), sorted(documented & routes - answered))
    assert ("GET", "/login/huggingface") in answered   # the sign-in routes are served with sign-in configured
