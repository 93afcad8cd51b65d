"""Who is submitting: an identity a submitter cannot choose, for rate limits, quotas and name ownership.

A submission carries two identities (``Leaderboard.submit(client=..., account=...)``):

* ``client``: ``ip:<address>``. Behind the Spaces proxy the connection comes from the proxy, which
  *appends* the address it saw to ``X-Forwarded-For``; everything to the left of that entry was written
  by the client and is ignored. ``FIGBENCH_TRUSTED_PROXIES`` (default 1 on a Space, 0 elsewhere) is the
  number of proxies in front of the app: the client is the entry that many places from the right of
  *all* ``X-Forwarded-For`` lines joined in order (a client's own second header line cannot win).
  Off a Space the header is not trusted at all: the address is the connection's (and
  :func:`untrusted_forwarding` stops uvicorn from rewriting it from the header first).
* ``account``: ``hf:<username>`` when signed in with Hugging Face (the page's login button; for the API a
  Hugging Face access token, checked with the Hub's ``whoami``), or ``key:<hash>`` for a submitter token
  sent in the ``X-Figbench-Token`` header (``figbench submit --token``), on a board without Hugging Face
  sign-in. On hidden benchmarks only a token the maintainer issued counts
  (:mod:`~figbench_leaderboard.access.tokens`). With sign-in configured every submission needs a signed-in account.

The self-declared ``submitter`` field is a label only: it counts toward no limit and owns nothing.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from figbench_leaderboard.store.tokens import hash_token

PROXIES_ENV = "FIGBENCH_TRUSTED_PROXIES"
TOKEN_HEADER = "x-figbench-token"
MIN_TOKEN_CHARS = 16
MAX_TOKEN_CHARS = 256
_WHOAMI_TTL_S = 300.0
_whoami_cache: dict[str, tuple[float, str]] = {}
_whoami_lock = threading.Lock()


class IdentityError(ValueError):
    """A submitter token or Hugging Face token was refused (the message says why)."""


def on_space() -> bool:
    return bool(os.environ.get("SPACE_ID"))


def oauth_enabled() -> bool:
    """A Space with Hugging Face sign-in (``hf_oauth: true`` sets ``OAUTH_CLIENT_ID``)."""
    return bool(os.environ.get("OAUTH_CLIENT_ID"))


def trusted_proxies() -> int:
    default = "1" if on_space() else "0"
    try:
        return max(0, int(os.environ.get(PROXIES_ENV, default)))
    except ValueError:
        return int(default)


def untrusted_forwarding() -> None:
    """Make uvicorn (started by Gradio) leave the connection's address alone: by default it replaces it with
    ``X-Forwarded-For`` whenever the connection comes from 127.0.0.1, so any local client could choose its
    address. :func:`client_address` reads the header itself, as far as the configured proxies vouch for it."""
    os.environ["FORWARDED_ALLOW_IPS"] = ""


def _valid_ip(text: str) -> str | None:
    text = text.strip().strip('"').strip("[]")
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def forwarded_for(headers: Any) -> list[str]:
    """Every ``X-Forwarded-For`` entry, all header lines joined in the order they came."""
    if headers is None:
        return []
    if hasattr(headers, "getlist"):
        lines = headers.getlist("x-forwarded-for")
    else:
        raw = headers.get("x-forwarded-for") if hasattr(headers, "get") else None
        lines = [raw] if raw else []
    return [e for e in (x.strip() for line in lines for x in str(line).split(",")) if e]


def client_address(headers: Any, peer: str | None, *, proxies: int | None = None) -> str | None:
    """The client address: the connection's peer, or with ``proxies`` trusted proxies the entry of
    ``X-Forwarded-For`` that the outermost trusted proxy appended."""
    proxies = trusted_proxies() if proxies is None else proxies
    if proxies > 0:
        entries = forwarded_for(headers)
        if len(entries) >= proxies:
            ip = _valid_ip(entries[-proxies])
            if ip:
                return ip
    return peer


def token_identity(token: str) -> str:
    """``key:<hash>`` of a submitter token (only the hash is stored)."""
    token = token.strip()
    if not (MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS) or not token.isascii() or not token.isprintable():
        raise IdentityError(f"submitter token: expected {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} printable ASCII "
                            "characters (figbench submit makes one for you)")
    return hash_token(token)


_OVERVIEW_TIMEOUT_S = 10.0
_OVERVIEW_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="figbench-hf-overview")


def hf_account_created(username: str) -> float | None:
    """When a Hugging Face account was created (Unix time), from the Hub's ``/api/users/NAME/overview`` (at
    ``HF_ENDPOINT``): its ``createdAt``, which ``huggingface_hub``'s ``User`` keeps as an unknown key. None when the
    Hub cannot be asked or gives no date (callers refuse then: the age is unconfirmed). Cached 5 minutes."""
    from datetime import datetime

    key = f"created\x1f{username}"
    now = time.monotonic()
    with _whoami_lock:
        hit = _whoami_cache.get(key)
        if hit is not None and now - hit[0] < _WHOAMI_TTL_S:
            return float(hit[1]) if hit[1] else None
    from huggingface_hub import HfApi, constants

    api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or constants.ENDPOINT)
    try:   # get_user_overview takes no timeout: a Hub that does not answer in time leaves the age unconfirmed
        user = _OVERVIEW_POOL.submit(api.get_user_overview, username).result(timeout=_OVERVIEW_TIMEOUT_S)
        text = getattr(user, "createdAt", None)
        created = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() if isinstance(text, str) else None
    except Exception:  # unreachable Hub, unknown user, a date it cannot read: unconfirmed
        created = None
    with _whoami_lock:
        _whoami_cache[key] = (now, str(created) if created is not None else "")
    return created


def hf_username(token: str) -> str:
    """The Hugging Face user a token belongs to (the Hub's ``whoami``, at ``HF_ENDPOINT``; cached 5 minutes)."""
    digest = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
    now = time.monotonic()
    with _whoami_lock:
        hit = _whoami_cache.get(digest)
        if hit is not None and now - hit[0] < _WHOAMI_TTL_S:
            return hit[1]
    from huggingface_hub import HfApi, constants

    try:
        info = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).whoami(token=token)
    except Exception as e:
        raise IdentityError(f"the Hugging Face token was not accepted by the Hub ({type(e).__name__}); sign in "
                            "again or pass a valid token") from None
    name = info.get("name") if isinstance(info, dict) else None
    if not isinstance(name, str) or not name or info.get("type", "user") != "user":
        raise IdentityError("the Hugging Face token does not belong to a user account")
    with _whoami_lock:
        if len(_whoami_cache) > 10_000:
            _whoami_cache.clear()
        _whoami_cache[digest] = (now, name)
    return name


def _profile_name(profile: Any) -> str | None:
    if profile is None:
        return None
    name = getattr(profile, "username", None)
    if not name and isinstance(profile, dict):
        name = profile.get("preferred_username")
    return name or None


def _headers(request: Any) -> Any:
    raw = getattr(request, "request", None)   # gr.Request wraps the Starlette request (all header lines)
    headers = getattr(raw, "headers", None) if raw is not None else None
    return headers if headers is not None else getattr(request, "headers", None)


def request_identity(request: Any, profile: Any = None, oauth_token: Any = None, *, require_account: bool = False,
                     token: str | None = None) -> tuple[str | None, str | None]:
    """``(client, account)`` of a Gradio request: ``("ip:<address>", "hf:<user>" | "key:<hash>" | None)``.

    ``profile``: the signed-in Hugging Face profile (from the session). ``oauth_token``: a Hugging Face
    access token (a ``gr.OAuthToken`` or text), verified with the Hub when there is no profile.
    ``require_account``: refuse (:class:`IdentityError`) without a verified Hugging Face account.
    ``token``: a submitter token typed into the form (else the ``X-Figbench-Token`` header's).
    """
    account = None
    name = _profile_name(profile)
    if name:
        account = f"hf:{name}"
    elif oauth_token is not None:
        token = getattr(oauth_token, "token", oauth_token)
        if isinstance(token, str) and token.strip():
            account = f"hf:{hf_username(token.strip())}"
    headers = _headers(request) if request is not None else None
    if require_account and account is None:
        raise IdentityError("sign in with Hugging Face to submit: on the page, the sign-in button; through the "
                            "API, your Hugging Face access token (figbench submit --hf-token, or gradio_client's "
                            "oauth_token=)")
    if account is None and not require_account:
        token = (token or "").strip() or (headers.get(TOKEN_HEADER) if headers is not None else None)
        if token:
            account = token_identity(token)
    if request is None:
        return None, account
    peer = getattr(getattr(request, "client", None), "host", None)
    host = client_address(headers, peer)
    return (f"ip:{host}" if host else None), account


def request_client(request: Any) -> str | None:
    """``ip:<address>`` of a Gradio request (the ``client`` of :func:`request_identity`, whatever its token)."""
    if request is None:
        return None
    host = client_address(_headers(request), getattr(getattr(request, "client", None), "host", None))
    return f"ip:{host}" if host else None
