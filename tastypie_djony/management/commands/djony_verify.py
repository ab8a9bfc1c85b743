"""``manage.py djony_verify``: does each resource answer the same on the other base class?

Finds every Tastypie resource in the URLconf, builds its twin on the other
base (a ``DjonyResource`` for a ``ModelResource`` and the other way round),
sends both the same generated requests through the project's URLconf and
middleware, and prints per resource how many answers were identical and how
fast each side was, then the first differences.  Exit status 1 when any
answer differs.  Every request runs in a transaction that is rolled back:
the command changes no data.  See :mod:`tastypie_djony.verify`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import zip_longest
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections
from django.test.utils import override_settings

import tastypie_djony
from tastypie_djony.verify import discovery, generation, report, running
from tastypie_djony.verify.differences import decode_json
from tastypie_djony.verify.progress import Progress
from tastypie_djony.verify.twins import TwinError, Twins
from tastypie_djony.verify.urlconf import twin_urlconf


class PinnedRouter:
    """Reads and writes of every model on one alias (``--database``)."""

    def __init__(self, alias: str) -> None:
        self.alias = alias

    def db_for_read(self, model: type, **hints: Any) -> str:
        return self.alias

    def db_for_write(self, model: type, **hints: Any) -> str:
        return self.alias

    def allow_relation(self, *objects: Any, **hints: Any) -> bool:
        return True


class Command(BaseCommand):
    help = (
        "Send the same requests to every Tastypie resource of the URLconf and to its twin on "
        "the other base class (ModelResource <-> DjonyResource); compare the answers and the "
        "times. Changes no data. Exit status 1 when an answer differs."
    )

    def get_version(self) -> str:
        """``--version``: tastypie_djony's version, not Django's."""
        return tastypie_djony.__version__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", metavar="USERNAME", help="send the requests as this user")
        parser.add_argument(
            "--writes",
            action="store_true",
            help="also POST/PUT/PATCH/DELETE built from existing rows (each rolled back)",
        )
        parser.add_argument(
            "--from-log", metavar="FILE", help="also replay the GET paths in FILE (one a line)"
        )
        parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
        parser.add_argument("--max-requests", type=int, default=2000, help="default 2000")
        parser.add_argument("--seconds", type=float, default=300.0, help="default 300")
        parser.add_argument(
            "--database", default="default", metavar="ALIAS", help="database alias (default)"
        )
        parser.add_argument("--sample", type=int, default=5, help="rows per resource (5)")
        parser.add_argument(
            "--resource",
            action="append",
            metavar="URI_PREFIX",
            help="only resources whose list URI starts with this (repeatable)",
        )
        parser.add_argument("--show", type=int, default=5, help="differences shown (5)")

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        if alias not in connections:
            raise CommandError(
                f"--database {alias!r}: not in DATABASES ({', '.join(connections)})."
            )
        for name in ("max_requests", "seconds", "sample"):
            if options[name] <= 0:
                raise CommandError(f"--{name.replace('_', '-')} must be positive.")
        overrides: dict[str, Any] = {"MIDDLEWARE": [running.MIDDLEWARE, *settings.MIDDLEWARE]}
        if alias != "default":
            overrides["DATABASE_ROUTERS"] = [PinnedRouter(alias)]
        if options["user"] and _sessions_in_use():
            # A login whose session is a signed cookie: nothing written.
            overrides["SESSION_ENGINE"] = "django.contrib.sessions.backends.signed_cookies"
        with override_settings(**overrides), _quiet_request_logs():
            failed = self._verify(alias, options)
        if failed:
            raise CommandError(failed, returncode=1)

    # -- steps ---------------------------------------------------------------------------
    def _verify(self, alias: str, options: dict[str, Any]) -> str:
        found = discovery.find_resources()
        resources = [
            r
            for r in found.resources
            if not options["resource"]
            or any(r.get_resource_uri().startswith(p) for p in options["resource"])
        ]
        if not resources:
            raise CommandError("No ModelResource or DjonyResource found in the URLconf.")
        twins, stand_ins, refused = Twins(), {}, []
        for resource in resources:
            try:
                stand_ins[id(resource)] = twins.instance(resource)
            except TwinError as error:
                refused.append(str(error))
        resources = [r for r in resources if id(r) in stand_ins]
        module = twin_urlconf(stand_ins)
        headers, user = self._authenticate(alias, options)
        runner = running.Runner(alias, headers)
        if user is not None and _sessions_in_use():
            runner.login(user)
        sides_of = {id(r): self._sides(r, module) for r in resources}  # original first, twin second
        plans = self._plan(resources, runner, sides_of, alias, options)
        summaries = {
            r.get_resource_uri(): report.ResourceSummary(
                r.get_resource_uri(), discovery.base_name(r)
            )
            for r in resources
        }
        by_uri = {r.get_resource_uri(): r for r in resources}
        queue = [req for group in zip_longest(*plans) for req in group if req is not None]
        queue = queue[: options["max_requests"]]
        deadline = time.monotonic() + options["seconds"]
        bar = Progress("djony_verify", len(queue)) if sys.stderr.isatty() else None
        stopped = False
        for index, request in enumerate(queue):
            if time.monotonic() > deadline:
                stopped = True
                break
            sides = sides_of[id(by_uri[request.resource])]
            summaries[request.resource].outcomes.append(runner.compare(request, sides, index % 2))
            if bar:
                bar.advance()
        if bar:
            bar.close()
        return self._report(list(summaries.values()), refused, stopped, alias, options)

    def _sides(self, resource: Any, module: Any) -> list[running.Side]:
        base = discovery.base_name(resource)
        other = "ModelResource" if base == "DjonyResource" else "DjonyResource"
        return [running.Side(base), running.Side(other, module)]

    def _plan(
        self,
        resources: list,
        runner: running.Runner,
        sides_of: dict[int, list[running.Side]],
        alias: str,
        options: dict[str, Any],
    ) -> list[list[generation.Request]]:
        plans = []
        for resource in resources:
            requests = list(generation.ResourceRequests(resource, alias, options["sample"]).all())
            if options["writes"]:
                original = sides_of[id(resource)][0]

                def fetch_json(path: str, side: running.Side = original) -> Any:
                    answer, _ = runner.send(side, generation.Request("", "GET", path))
                    return decode_json(answer.body) if answer.status == 200 else None

                # First, so that --max-requests does not cut them off.
                requests = [*generation.write_requests(resource, alias, fetch_json), *requests]
            plans.append(requests)
        if options["from_log"]:
            uris = {r.get_resource_uri(): r.get_resource_uri() for r in resources}
            logged: dict[str, list[generation.Request]] = {uri: [] for uri in uris}
            for request in generation.from_log(Path(options["from_log"]), uris):
                logged[request.resource].append(request)
            plans += [requests for requests in logged.values() if requests]
        for requests in plans:  # warm both sides up (imports, URL resolvers): not counted
            if requests:
                first = requests[0]
                resource = next(r for r in resources if r.get_resource_uri() == first.resource)
                for side in sides_of[id(resource)]:
                    runner.send(side, generation.Request(first.resource, "GET", first.resource))
        return plans

    def _authenticate(self, alias: str, options: dict[str, Any]) -> tuple[dict[str, str], Any]:
        """The ``--user``: an ``ApiKey`` header if the user has a key, and the user (for a
        session login where the project uses sessions)."""
        username = options["user"]
        if not username:
            return {}, None
        user_model = get_user_model()
        try:
            user = user_model._default_manager.db_manager(alias).get_by_natural_key(username)
        except user_model.DoesNotExist:
            raise CommandError(f"--user {username!r}: no such user.") from None
        headers = {}
        try:
            from tastypie.models import ApiKey

            key = ApiKey.objects.using(alias).filter(user=user).first()
        except Exception:  # noqa: BLE001 - tastypie's ApiKey table is not installed
            key = None
        if key is not None:
            headers["HTTP_AUTHORIZATION"] = f"ApiKey {username}:{key.key}"
        return headers, user

    def _report(
        self,
        summaries: list[report.ResourceSummary],
        refused: list[str],
        stopped: bool,
        alias: str,
        options: dict[str, Any],
    ) -> str:
        out = self.stdout
        sent = sum(len(s.outcomes) for s in summaries)
        vendor = connections[alias].vendor
        out.write(
            f"djony_verify: {sent} requests to {len(summaries)} resources and their twins on "
            f"{vendor} ({alias}), as {options['user'] or 'anonymous'}"
            + (" (stopped by --seconds)" if stopped else "")
        )
        out.write("")
        out.write(report.table(summaries))
        different = [o for s in summaries for o in s.different]
        improved = sum(len(s.improved) for s in summaries)
        if improved:
            out.write(
                f"\nimproved: {improved} requests where ModelResource answers 5xx and "
                "DjonyResource a 4xx with an error message (DjonyResource is better there)"
            )
        for message in refused:
            out.write(f"\ncannot be switched: {message}")
        if different:
            out.write(
                f"\nFirst differences ({min(options['show'], len(different))} of {len(different)}):"
            )
            for outcome in different[: options["show"]]:
                out.write("")
                out.write(report.difference_text(outcome))
        if options["json"]:
            data = report.as_json(
                summaries,
                {"database": alias, "vendor": vendor, "user": options["user"],
                 "stopped_by_seconds": stopped, "cannot_be_switched": refused},
            )  # fmt: skip
            Path(options["json"]).write_text(json.dumps(data, indent=2) + "\n")
            out.write(f"\nWrote {options['json']}")
        if different or refused:
            return f"{len(different)} of {sent} answers differ" + (
                f"; {len(refused)} resources cannot be switched" if refused else ""
            )
        out.write("\nEvery answer is the same on both bases.")
        return ""


@contextmanager
def _quiet_request_logs() -> Iterator[None]:
    """No traceback per ModelResource 500 on stderr: the report shows those answers."""
    loggers = [logging.getLogger(name) for name in ("django.request", "tastypie")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _sessions_in_use() -> bool:
    return "django.contrib.sessions.middleware.SessionMiddleware" in settings.MIDDLEWARE
