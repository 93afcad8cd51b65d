"""Who is submitting, for rate limits and quotas: an identity a submitter cannot choose.

* Signed in with Hugging Face (a Space with ``hf_oauth: true`` shows a login button): ``hf:<username>``.
* Otherwise the client address. Behind the Spaces proxy the connection comes from the proxy, which
  *appends* the address it saw to ``X-Forwarded-For``; everything to the left of that entry was written
  by the client and is ignored. ``FIGBENCH_TRUSTED_PROXIES`` (default 1 on a Space, 0 elsewhere) is the
  number of proxies in front of the app: the client is the entry that many places from the right.
  Off a Space the header is not trusted at all: the address is the connection's.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

PROXIES_ENV = "FIGBENCH_TRUSTED_PROXIES"


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


def _valid_ip(text: str) -> str | None:
    text = text.strip().strip('"').strip("[]")
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def client_address(headers: Any, peer: str | None, *, proxies: int | None = None) -> str | None:
    """The client address: the connection's peer, or with ``proxies`` trusted proxies the entry of
    ``X-Forwarded-For`` that the outermost trusted proxy appended."""
    proxies = trusted_proxies() if proxies is None else proxies
    if proxies > 0:
        raw = headers.get("x-forwarded-for") if headers is not None else None
        if raw:
            entries = [e for e in (x.strip() for x in raw.split(",")) if e]
            if len(entries) >= proxies:
                ip = _valid_ip(entries[-proxies])
                if ip:
                    return ip
    return peer


def request_identity(request: Any, profile: Any = None) -> tuple[str | None, str | None]:
    """``(client, account)`` of a Gradio request: ``("ip:<address>", "hf:<username>" or None)``."""
    account = None
    if profile is not None:
        name = getattr(profile, "username", None) or (profile.get("preferred_username")
                                                      if isinstance(profile, dict) else None)
        if name:
            account = f"hf:{name}"
    if request is None:
        return None, account
    peer = getattr(getattr(request, "client", None), "host", None)
    host = client_address(getattr(request, "headers", None), peer)
    return (f"ip:{host}" if host else None), account
