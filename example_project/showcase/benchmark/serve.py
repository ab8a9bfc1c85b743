"""Serve the example project with cheroot, waitress or wsgiref (one process).

``python -m example_project.showcase.benchmark.serve --server cheroot --port 8000``
from the repository root.  ``compare`` starts gunicorn through its own
command line and the others through this module; SIGTERM stops them.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 512


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # no access log
        pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", choices=["cheroot", "waitress", "wsgiref"], required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")
    from example_project.wsgi import application

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    if args.server == "cheroot":
        from cheroot.wsgi import Server

        server = Server(
            (args.host, args.port), application, numthreads=args.threads, request_queue_size=512
        )
        try:
            server.start()
        finally:
            server.stop()
    elif args.server == "waitress":
        import waitress

        waitress.serve(
            application,
            host=args.host,
            port=args.port,
            threads=args.threads,
            backlog=512,
            _quiet=True,
        )
    else:
        httpd = make_server(
            args.host,
            args.port,
            application,
            server_class=ThreadingWSGIServer,
            handler_class=QuietHandler,
        )
        try:
            httpd.serve_forever()
        finally:
            httpd.server_close()


if __name__ == "__main__":
    sys.exit(main())
