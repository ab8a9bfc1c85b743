"""``manage.py djony_verify``: does each resource answer the same on the other base class?

Finds every Tastypie resource in the URLconf, builds its twin on the other
base (a ``DjonyResource`` for a ``ModelResource`` and the other way round),
sends both the same generated requests through the project's URLconf and
middleware, and prints per resource how many answers were identical and how
fast each side was, then the first differences.  Exit status 1, with one
line saying why, when an answer differs or when the run proved nothing (no
request reached a resource, most answers were errors on both sides, ...:
see :mod:`tastypie_djony.verify.verdict`).  Every request runs in a
transaction that is rolled back: the command changes no data.  See
:mod:`tastypie_djony.verify`.
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
from django.http.request import validate_host
from django.test.utils import override_settings
from django.utils.module_loading import import_string

import tastypie_djony
from tastypie_djony.verify import credentials, discovery, generation, report, running, verdict
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
        "times. Changes no data. Exit status 1, with the reason, when an answer differs or "
        "nothing could be compared."
    )

    def get_version(self) -> str:
        """``--version``: tastypie_djony's version, not Django's."""
        return tastypie_djony.__version__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--user",
            metavar="USERNAME",
            help="send the requests as this user (Session, Basic, ApiKey and Multi "
            "authentication; others through --credentials)",
        )
        parser.add_argument(
            "--credentials",
            metavar="DOTTED.PATH",
            help="function(authentication, user) -> request.META entries that let the user "
            "in through a custom authentication class, or None",
        )
        parser.add_argument(
            "--host",
            help="the Host the requests are sent to (default testserver; must be allowed by "
            "ALLOWED_HOSTS)",
        )
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
        host = options["host"] or "testserver"
        if not validate_host(host, _allowed_hosts()):
            raise CommandError(
                f"ALLOWED_HOSTS lacks {host!r}, so every request would be refused with "
                f"DisallowedHost: add {host!r} to ALLOWED_HOSTS or pass --host with an "
                "allowed host."
            )
        overrides: dict[str, Any] = {"MIDDLEWARE": [running.MIDDLEWARE, *settings.MIDDLEWARE]}
        if alias != "default":
            overrides["DATABASE_ROUTERS"] = [PinnedRouter(alias)]
        if options["user"]:
            overrides["AUTHENTICATION_BACKENDS"] = [
                credentials.BACKEND,
                *settings.AUTHENTICATION_BACKENDS,
            ]
            if _sessions_in_use():
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
        not_compared, uris = [], set()
        for resource in list(resources):
            why = verdict.unreachable(resource)
            if why is not None:
                not_compared.append(why)
                resources.remove(resource)
            elif resource.get_resource_uri() in uris:
                # One class registered with two Apis: Tastypie keeps one api_name in its
                # class-level options, so both instances answer at the same URI.
                resources.remove(resource)
            else:
                uris.add(resource.get_resource_uri())
        twins, stand_ins, refused = Twins(), {}, []
        for resource in resources:
            try:
                stand_ins[id(resource)] = twins.instance(resource)
            except TwinError as error:
                refused.append(str(error))
        resources = [r for r in resources if id(r) in stand_ins]
        module = twin_urlconf(stand_ins)
        user = self._user(alias, options)
        runner, unknown = self._runner(resources, user, alias, options)
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
        try:
            for index, request in enumerate(queue):
                if time.monotonic() > deadline:
                    stopped = True
                    break
                sides = sides_of[id(by_uri[request.resource])]
                outcome = runner.compare(request, sides, index % 2)
                summaries[request.resource].outcomes.append(outcome)
                if bar:
                    bar.advance()
        finally:
            credentials.VerifyBackend.user = None
        if bar:
            bar.close()
        notes = [*(f"not compared: {why}" for why in not_compared), *unknown]
        notes += _error_handling_notes(list(summaries.values()))
        return self._report(
            list(summaries.values()), refused, not_compared, notes, stopped, alias, options
        )

    def _user(self, alias: str, options: dict[str, Any]) -> Any:
        username = options["user"]
        if not username:
            return None
        user_model = get_user_model()
        try:
            return user_model._default_manager.db_manager(alias).get_by_natural_key(username)
        except user_model.DoesNotExist:
            raise CommandError(f"--user {username!r}: no such user.") from None

    def _runner(
        self, resources: list, user: Any, alias: str, options: dict[str, Any]
    ) -> tuple[running.Runner, list[str]]:
        """The runner, with what each resource's requests carry for ``--user``; and a note
        for each authentication the command cannot satisfy."""
        found, unknown = {}, []
        if user is not None:
            hook = import_string(options["credentials"]) if options["credentials"] else None
            credentials.VerifyBackend.user = user
            for resource in resources:
                given = credentials.credentials(resource._meta.authentication, user, alias, hook)
                found[resource.get_resource_uri()] = given
                if given.unknown:
                    unknown.append(
                        f"{resource.get_resource_uri()}: {given.unknown} is not a stock "
                        f"authentication: the requests are sent without credentials "
                        "(pass --credentials)"
                    )
        runner = running.Runner(alias, found, user, options["host"])
        if user is not None and _sessions_in_use() and any(c.session for c in found.values()):
            runner.login(user)
        return runner, unknown

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

                def fetch_json(
                    path: str, side: running.Side = original, uri: str = resource.get_resource_uri()
                ) -> Any:
                    answer, _ = runner.send(side, generation.Request(uri, "GET", path))
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

    def _report(
        self,
        summaries: list[report.ResourceSummary],
        refused: list[str],
        not_compared: list[str],
        notes: list[str],
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
        out.write(report.table(summaries, writes=options["writes"]))
        slower = [s.where_the_time_goes() for s in summaries]
        for note in [*notes, *(line for line in slower if line)]:
            out.write(f"\n{note}")
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
        failed = verdict.reason(summaries, not_compared, options["user"])
        if refused:
            failed = "; ".join(
                [*([failed] if failed else []), f"{len(refused)} resources cannot be switched"]
            )
        if options["json"]:
            data = report.as_json(
                summaries,
                {"database": alias, "vendor": vendor, "user": options["user"],
                 "stopped_by_seconds": stopped, "cannot_be_switched": refused,
                 "not_compared": not_compared, "notes": notes, "failure": failed or None},
            )  # fmt: skip
            Path(options["json"]).write_text(json.dumps(data, indent=2) + "\n")
            out.write(f"\nWrote {options['json']}")
        if failed:
            return failed
        out.write("\nEvery answer is the same on both bases.")
        return ""


def _error_handling_notes(summaries: list[report.ResourceSummary]) -> list[str]:
    """One line per resource on whose requests the project's error handling itself raised."""
    notes = []
    for summary in summaries:
        failed = [
            (o, a) for o in summary.outcomes for a in o.answers.values()
            if a.exception.startswith(running.ERROR_HANDLING)
        ]  # fmt: skip
        if failed:
            outcome, answer = failed[0]
            first = answer.exception.splitlines()[0]
            notes.append(
                f"{summary.uri}: {running.ERROR_HANDLING} on {len({id(o) for o, _ in failed})} "
                f"requests, e.g. {outcome.request}: {first[len(running.ERROR_HANDLING) + 2 :]}"
            )
    return notes


def _allowed_hosts() -> list[str]:
    """``ALLOWED_HOSTS`` as ``HttpRequest.get_host()`` applies it."""
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


@contextmanager
def _quiet_request_logs() -> Iterator[None]:
    """No traceback per ModelResource 500 on stderr: the report shows those answers."""
    names = ("django.request", "django.security", "tastypie")
    loggers = [logging.getLogger(name) for name in names]
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
