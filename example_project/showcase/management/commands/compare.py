"""``manage.py compare``: v2 (ModelResource) vs v3 (DjonyResource) vs DRF.

1. migrate, and seed the demo data if the database has no users;
2. check that v2 and v3 answer byte-identical bodies (stop if not);
3. serve the project with a real WSGI server on 127.0.0.1 and a free port;
4. load each endpoint with ab (or the built-in client), alternating the APIs;
5. print ApacheBench-style tables with the speed-ups; ``--json``, ``--plot``.

Every run is bounded (``--duration`` per run, ``--timeout`` per request) and
the server is stopped at the end, on errors and on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError, connections

from example_project.showcase import seeding
from example_project.showcase.benchmark import identical, load, report, servers
from example_project.showcase.benchmark.endpoints import APIS, ENDPOINTS, ENDPOINTS_BY_NAME, PING
from tastypie_djony.verify.progress import Progress


class Command(BaseCommand):
    help = (
        "Check that /api/v2/ (Tastypie ModelResource) and /api/v3/ (DjonyResource) answer "
        "identical bodies, then load them and /api/drf/ under a real WSGI server and print "
        "ApacheBench-style results."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        load_group = parser.add_argument_group("load")
        load_group.add_argument(
            "-n",
            "--requests",
            type=int,
            default=None,
            help="requests per API and endpoint (default as in the article: "
            "100, and 20 for the full user list)",
        )
        load_group.add_argument(
            "-c",
            "--concurrency",
            type=int,
            default=4,
            help="requests at a time (default 4, as in the article)",
        )
        load_group.add_argument(
            "--duration",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="stop a run after this long even if -n is not reached "
            "(default 60; 0 for no bound)",
        )
        load_group.add_argument(
            "--timeout",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="per-request timeout (default 60)",
        )
        load_group.add_argument(
            "--warmup",
            type=int,
            default=None,
            help="requests per API and endpoint before measuring, not counted "
            "(default 2 x concurrency)",
        )
        load_group.add_argument(
            "--rounds",
            type=int,
            default=1,
            help="repeat v2/v3/drf this many times, rotating the order; "
            "each round sends -n requests (default 1)",
        )
        load_group.add_argument(
            "--client",
            choices=["auto", "ab", "builtin"],
            default="auto",
            help="load client: ab if installed, else built-in (default auto)",
        )
        load_group.add_argument(
            "--endpoint",
            action="append",
            choices=list(ENDPOINTS_BY_NAME),
            help="measure only this endpoint (repeatable; default all)",
        )
        server_group = parser.add_argument_group("server")
        server_group.add_argument(
            "--server",
            choices=list(servers.SERVERS),
            default="gunicorn",
            help="WSGI server (default gunicorn)",
        )
        server_group.add_argument(
            "--workers",
            type=int,
            default=None,
            help="server processes (gunicorn only; default: CPU count)",
        )
        server_group.add_argument(
            "--threads",
            type=int,
            default=None,
            help="threads per process (default 1 for gunicorn, 4 otherwise)",
        )
        data_group = parser.add_argument_group("data")
        data_group.add_argument(
            "--database",
            metavar="URL",
            help="database URL, e.g. postgres://postgres@127.0.0.1:5432/djony_demo "
            "(read by manage.py; same as DATABASE_URL)",
        )
        data_group.add_argument(
            "--users",
            type=int,
            default=None,
            help="users to seed when the database has none (default 1000)",
        )
        data_group.add_argument(
            "--reset",
            action="store_true",
            help="delete the users and seed again (with --users or 1000)",
        )
        out_group = parser.add_argument_group("output")
        out_group.add_argument("--json", metavar="FILE", help="write the results as JSON")
        out_group.add_argument(
            "--plot", metavar="FILE.png", help="draw a bar chart (needs matplotlib)"
        )
        out_group.add_argument(
            "--markdown", action="store_true", help="also print the summary as a Markdown table"
        )
        out_group.add_argument(
            "--check-only",
            action="store_true",
            help="only check that v2 and v3 answer identical bodies",
        )
        out_group.add_argument(
            "--bodies",
            metavar="DIR",
            help="where to save the bodies if v2 and v3 differ (default: a temp dir)",
        )

    # -- entry point ------------------------------------------------------------

    def handle(self, *args: Any, **options: Any) -> None:
        self.stderr.style_func = None  # progress is not an error: no red on a terminal
        previous = signal.getsignal(signal.SIGTERM)
        in_main_thread = _in_main_thread()
        if in_main_thread:
            signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            self._handle(options)
        except KeyboardInterrupt:
            raise CommandError("Interrupted; the server was stopped.", returncode=130) from None
        finally:
            if in_main_thread:
                signal.signal(signal.SIGTERM, previous)

    def _handle(self, options: dict[str, Any]) -> None:
        self._validate(options)
        endpoints = [ENDPOINTS_BY_NAME[name] for name in options["endpoint"] or []] or list(
            ENDPOINTS
        )
        if options["check_only"]:
            self._prepare_database(options)
            self._check_identical(endpoints, options)
            self.stdout.write("v2 and v3 answer identical bodies.")
            return
        config = self._server_config(options)  # fail early on a missing server or client
        try:
            client = load.pick_client(options["client"])
        except RuntimeError as error:
            raise CommandError(str(error)) from None
        data = self._prepare_database(options)
        checks = self._check_identical(endpoints, options)
        settings = {
            "server": config.name,
            "workers": config.workers,
            "threads": config.threads,
            "client": client.name,
            "requests": options["requests"],
            "concurrency": options["concurrency"],
            "duration_s": options["duration"] or None,
            "timeout_s": options["timeout"],
            "warmup": options["warmup"],
            "rounds": options["rounds"],
        }
        environment = {
            "machine": report.machine(),
            "versions": report.versions(config.describe(), client.version()),
            "database": report.database(),
        }
        connections.close_all()  # the server processes open their own
        with tempfile.TemporaryDirectory(prefix="djony-compare-") as tmp:
            server = servers.Server(config, Path(tmp) / "server.log")
            self.stderr.write(f"Starting {config.describe()} on 127.0.0.1 ...")
            try:
                server.start()
            except servers.ServerError as error:
                raise CommandError(str(error)) from None
            try:
                self.stderr.write(
                    f"Serving on http://127.0.0.1:{server.port}/ ; client: {client.version()}"
                )
                headroom = self._headroom(server, client, options)
                results = self._measure(server, client, endpoints, options)
            finally:
                server.stop()
        built = report.build_report(
            command=_command_line(options),
            environment=environment,
            data=data,
            settings=settings,
            identical=[check.as_json() for check in checks],
            headroom=headroom,
            endpoints=[(e.name, e.path, results[e.name]) for e in endpoints],
        )
        self._print(built, options)

    # -- steps ----------------------------------------------------------------------

    def _validate(self, options: dict[str, Any]) -> None:
        for name in ("requests", "concurrency", "rounds"):
            if options[name] is not None and options[name] < 1:
                raise CommandError(f"--{name} must be at least 1.")
        if options["warmup"] is None:
            options["warmup"] = 2 * options["concurrency"]
        if options["database"] and os.environ.get("DATABASE_URL") != options["database"]:
            raise CommandError(
                "--database is read by manage.py before Django starts: run "
                "`python example_project/manage.py compare --database URL` "
                "or set DATABASE_URL."
            )
        if options["plot"]:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                raise CommandError("--plot needs matplotlib: pip install matplotlib") from None

    def _prepare_database(self, options: dict[str, Any]) -> dict[str, int]:
        try:
            info = report.database()
        except DatabaseError as error:
            name = connections["default"].settings_dict["NAME"]
            raise CommandError(
                f"Cannot use the database {name!r}: {str(error).strip()}\n"
                "Create it first (createdb ..., CREATE DATABASE ...) or check DATABASE_URL."
            ) from None
        self.stderr.write(f"Database: {info['vendor']} {info['version']} ({info['name']})")
        call_command("migrate", verbosity=0, interactive=False)
        existing = User.objects.count()
        if options["reset"] or not existing:
            users = options["users"] or 1000
            self.stderr.write(f"Seeding {users} users ...")
            try:
                seeding.seed(users=users, reset=options["reset"])
            except seeding.SeedError as error:
                raise CommandError(str(error)) from None
        elif options["users"] and options["users"] != existing:
            raise CommandError(
                f"The database has {existing} users, not {options['users']}: add --reset to seed "
                f"{options['users']} users (this deletes the existing ones)."
            )
        elif not seeding.is_seeded():
            self.stderr.write(
                self.style.WARNING(
                    f"The users were not made by `seed` (user {seeding.SPECIAL_USER_ID} does not "
                    f"have {seeding.SPECIAL_USER_PERMISSIONS} permissions); "
                    "use --reset for the article's data."
                )
            )
        special = User.objects.filter(pk=seeding.SPECIAL_USER_ID).first()
        return {
            "users": User.objects.count(),
            "permissions": Permission.objects.count(),
            "user_3_permissions": special.user_permissions.count() if special else 0,
        }

    def _check_identical(
        self, endpoints: list, options: dict[str, Any]
    ) -> list[identical.CheckResult]:
        self.stderr.write("Checking that v2 and v3 answer identical bodies ...")
        checks = identical.check_identical(endpoints)
        for check in checks:
            if check.identical:
                drf = (
                    "DRF: same data"
                    if check.drf_same_data
                    else f"DRF: DIFFERENT data ({check.drf_problem})"
                )
                self.stderr.write(
                    f"  {check.endpoint.path}: v2 == v3 ({check.lengths['v2']} bytes, "
                    f"status {check.statuses['v2']}); {drf}"
                )
        failed = [check for check in checks if not check.identical]
        if failed:
            directory = Path(options["bodies"] or tempfile.mkdtemp(prefix="djony-bodies-"))
            paths = identical.save_bodies(failed, directory)
            message = "\n\n".join(check.problem for check in failed)
            raise CommandError(
                f"v2 and v3 do not answer identical bodies, so there is nothing fair to "
                f"measure.\n\n{message}\n\nThe bodies are in {directory}: "
                f"{', '.join(p.name for p in paths)}"
            )
        connections.close_all()
        return checks

    def _server_config(self, options: dict[str, Any]) -> servers.ServerConfig:
        name = options["server"]
        workers = options["workers"] or ((os.cpu_count() or 1) if name == "gunicorn" else 1)
        threads = options["threads"] or (1 if name == "gunicorn" else 4)
        config = servers.ServerConfig(name=name, workers=workers, threads=threads)
        try:
            servers.check_available(config)
        except servers.ServerError as error:
            raise CommandError(str(error)) from None
        return config

    def _run(
        self,
        label: str,
        server: servers.Server,
        client: load.LoadClient,
        path: str,
        requests: int,
        options: dict[str, Any],
        duration: float | None,
    ) -> load.RunResult:
        bar = Progress(label, requests, stream=sys.stderr)
        try:
            result = client.run(
                server.host,
                server.port,
                path,
                requests,
                options["concurrency"],
                duration,
                options["timeout"],
                progress=bar.update,
            )
        except RuntimeError as error:  # the client could not run (ab's own errors)
            raise CommandError(str(error)) from None
        finally:
            bar.close()
        if not server.running():
            raise CommandError(
                f"The server stopped during {path}; its log ends with:\n{server.log_tail()}"
            )
        return result

    def _headroom(
        self, server: servers.Server, client: load.LoadClient, options: dict[str, Any]
    ) -> load.RunResult:
        """The same client against /ping/: how fast it goes when the view costs nothing."""
        self._run(_label("-", "ping", "warm-up"), server, client, PING, 50, options, 5)
        return self._run(
            _label("-", "ping", "headroom"),
            server,
            client,
            PING,
            max(500, 5 * (options["requests"] or 100)),
            options,
            5,
        )

    def _measure(
        self,
        server: servers.Server,
        client: load.LoadClient,
        endpoints: list,
        options: dict[str, Any],
    ) -> dict[str, dict[str, load.RunResult]]:
        duration = options["duration"] or None
        results: dict[str, dict[str, load.RunResult]] = {}
        for endpoint in endpoints:
            if options["warmup"]:
                for api in APIS:
                    warm = self._run(
                        _label(api.key, endpoint.name, "warm-up"),
                        server,
                        client,
                        endpoint.url(api),
                        options["warmup"],
                        options,
                        duration,
                    )
                    if warm.non_2xx or warm.failed:
                        self.stderr.write(
                            self.style.WARNING(
                                f"  {endpoint.url(api)}: {warm.non_2xx} non-2xx, "
                                f"{warm.failed} failed during warm-up"
                            )
                        )
            per_api: dict[str, load.RunResult] = {}
            for round_index in range(options["rounds"]):
                shift = round_index % len(APIS)
                for api in APIS[shift:] + APIS[:shift]:  # rotate the order each round
                    label = _label(api.key, endpoint.name, f"run {round_index + 1}")
                    requests = options["requests"] or endpoint.default_requests
                    run = self._run(
                        label, server, client, endpoint.url(api), requests, options, duration
                    )
                    per_api[api.key] = per_api[api.key].merged(run) if api.key in per_api else run
            results[endpoint.name] = {api.key: per_api[api.key] for api in APIS}
        return results

    def _print(self, built: dict[str, Any], options: dict[str, Any]) -> None:
        out = self.stdout
        settings, db, versions = built["settings"], built["database"], built["versions"]
        out.write("")
        out.write(
            f"{built['date']}  Django {versions['django']}, django-tastypie "
            f"{versions['django-tastypie']}, djangorestframework "
            f"{versions['djangorestframework']}, pony {versions['pony']}, "
            f"djony {versions['djony']}, Python {built['machine']['python']}"
        )
        out.write(
            f"{db['vendor']} {db['version']}; {versions['server']}; client {versions['client']}; "
            f"{built['machine']['cpus']} CPUs (load {_load(built)}); {built['data']['users']} users"
        )
        out.write(
            f"-n {settings['requests'] or '100 (full user list: 20)'} -c {settings['concurrency']} "
            "per API and endpoint"
            + (f", {settings['rounds']} rounds" if settings["rounds"] > 1 else "")
            + f"; {report.legend()}"
        )
        for endpoint in built["endpoints"]:
            out.write("")
            out.write(report.endpoint_table(endpoint["path"], endpoint["results"]))
            speed = endpoint["speedup"]
            out.write(
                f"Speed-up (requests per second): v3/v2 {report.times(speed['v3_over_v2'])}, "
                f"v3/drf {report.times(speed['v3_over_drf'])}"
            )
        out.write("")
        out.write(report.summary_table(built))
        line = report.headroom_line(built)
        if line:
            out.write(line)
        if options["markdown"]:
            out.write("")
            out.write(report.summary_table(built, markdown=True))
        problems = report.validate(built)
        if problems:  # pragma: no cover - a bug in this command
            raise CommandError("The report does not match its schema: " + "; ".join(problems))
        if options["json"]:
            Path(options["json"]).write_text(json.dumps(built, indent=2) + "\n")
            out.write(f"Wrote {options['json']}")
        if options["plot"]:
            try:
                report.plot(built, Path(options["plot"]))
            except report.PlotError as error:
                raise CommandError(str(error)) from None
            out.write(f"Wrote {options['plot']}")


def _label(api: str, endpoint: str, phase: str) -> str:
    return f"{api:<3} {endpoint:<15} {phase:<8}"


def _load(built: dict[str, Any]) -> str:
    load_average = built["machine"].get("load_average")
    return " ".join(f"{x:.2f}" for x in load_average) if load_average else "?"


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _command_line(options: dict[str, Any]) -> str:
    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        return "manage.py " + " ".join(sys.argv[1:])
    return "compare (call_command)"
