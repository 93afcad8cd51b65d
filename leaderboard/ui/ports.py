"""A busy port, said plainly: ``port N is in use; choose one with --port / make run PORT=N``."""

from __future__ import annotations

import errno
import socket


class PortInUseError(ValueError):
    """The server's port is taken (a ``ValueError``: the ``--port`` value is what to change)."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(f"port {port} is in use (on {host}); choose one with --port / make run PORT=N")
        self.host, self.port = host, port


def check_port_free(host: str, port: int) -> None:
    """Raise :class:`PortInUseError` when nothing can listen on ``host:port`` (port 0: any port, never busy)."""
    if not port:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return  # an unknown host name is the server's error to report
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the server binds: TIME_WAIT is not busy
        try:
            s.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise PortInUseError(host, port) from None
            raise
