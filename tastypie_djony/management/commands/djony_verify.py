"""``manage.py djony_verify``: does each resource answer the same on the other base class?

Finds every Tastypie resource in the URLconf, builds its twin on the other
base (a ``DjonyResource`` for a ``ModelResource`` and the other way round),
sends both the same generated requests through the project's URLconf and
middleware, and prints per resource how many answers were identical and how
fast each side was, then the first differences.  A resource it cannot
compare (a plain ``Resource``, one no request reaches, one whose twin cannot
be built ...) is named with the reason, and the run goes on with the others;
one whose GETs answer 405 on both sides is named "not readable" and not timed,
and the requests ``--max-requests`` or ``--seconds`` cut off are counted per
resource.

Exit status 0 when every answer compared was the same (a line of its own
counts what was not compared or not sent); 1, with one line saying why, when an
answer differs or when the run proved nothing (nothing was compared, or nothing
read; most answers were errors on both sides, ...: see
:mod:`tastypie_djony.verify.verdict`);
2 when the run could not go on (the message says what it was doing and what
was raised).  Every request runs in a transaction that is rolled back: the
command changes no rows (with ``--writes``, what the project's code does outside the
database, such as deleting files, is not undone: :data:`WRITES_WARNING`).  See
:mod:`tastypie_djony.verify`.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
from tastypie_djony.verify import (
    budget,
    credentials,
    discovery,
    generation,
    owners,
    refusals,
    report,
    running,
    timing,
    verdict,
)
from tastypie_djony.verify.differences import decode_json
from tastypie_djony.verify.progress import Progress
from tastypie_djony.verify.targets import Target
from tastypie_djony.verify.trouble import Ledger, NotCompared, describe
from tastypie_djony.verify.twins import Twins
from tastypie_djony.verify.urlconf import outside_urlconf, twin_urlconf


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


#: Seconds at least for sampling the project's share of the timed resources' time (a
#: tenth of --timing-seconds when that is more).
SAMPLING_SECONDS = 5.0

#: Printed when a run writes: the database is rolled back, the world outside it is not.
WRITES_WARNING = (
    "--writes: each write is rolled back in the database only; what the project's receivers "
    "and save()/delete() do outside it (files deleted with a row or its copy, which shares the "
    "original's files; mail; other services) is not undone. Run it on a copy of your data and "
    "media."
)


class Command(BaseCommand):
    help = (
        "Send the same requests to every Tastypie resource of the URLconf and to its twin on "
        "the other base class (ModelResource <-> DjonyResource); compare the answers and the "
        "times. Changes no data. A resource that cannot be compared is named with the reason "
        "and left out. Exit status 0 when every answer compared is the same, 1 (with the "
        "reason) when an answer differs or nothing could be compared, 2 when the run could "
        "not go on."
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
            help="also POST/PUT/PATCH/DELETE built from existing rows (each rolled back in the "
            "database; what receivers do outside it, such as deleting a copy's files, which are "
            "the original row's, is not undone: run it on a copy of your data and media)",
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
        parser.add_argument(
            "--rounds",
            type=int,
            default=15,
            help="rounds of the timing (default 15): each resource's identical GETs, on one "
            "side then the other",
        )
        parser.add_argument(
            "--timed-per-resource",
            type=int,
            default=timing.PER_RESOURCE,
            metavar="N",
            help=f"GETs timed per resource (default {timing.PER_RESOURCE}, spread over its "
            "kinds of request; 0: every GET both bases answered the same with a 200)",
        )
        parser.add_argument(
            "--timing-seconds",
            type=float,
            default=120.0,
            help="at most this long for the timing (default 120; 0: no timing)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        if alias not in connections:
            raise CommandError(
                f"--database {alias!r}: not in DATABASES ({', '.join(connections)})."
            )
        for name in ("max_requests", "seconds", "sample", "rounds"):
            if options[name] <= 0:
                raise CommandError(f"--{name.replace('_', '-')} must be positive.")
        if options["timing_seconds"] < 0:
            raise CommandError("--timing-seconds must not be negative.")
        if options["timed_per_resource"] < 0:
            raise CommandError("--timed-per-resource must not be negative (0: every GET).")
        if options["timing_seconds"] and options["rounds"] < timing.MIN_ROUNDS:
            raise CommandError(
                f"--rounds {options['rounds']}: a speed figure needs at least {timing.MIN_ROUNDS} "
                "rounds (or --timing-seconds 0: no timing)."
            )
        if options["from_log"] and not Path(options["from_log"]).is_file():
            raise CommandError(f"--from-log {options['from_log']}: no such file.")
        if options["writes"]:
            self.stderr.write(WRITES_WARNING)
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
        self.step = "starting"
        try:
            with override_settings(**overrides), _quiet_request_logs():
                failed = self._verify(alias, options)
        except CommandError:
            raise
        except Exception as error:
            # Not one resource's trouble (those are "not compared"): the run cannot go on.
            raise CommandError(
                f"djony_verify stopped while {self.step}: {describe(error)}", returncode=2
            ) from error
        if failed:
            raise CommandError(failed, returncode=1)

    # -- steps ---------------------------------------------------------------------------
    def _verify(self, alias: str, options: dict[str, Any]) -> str:
        """Compare every resource of the URLconf with its twin; the failure line, or ``""``.

        ``self.step`` says what the run is doing, for the message of an exception no
        single resource caused.
        """
        ledger = Ledger()
        user = self._user(alias, options)
        hook = self._hook(options)
        self.step = "reading the URLconf"
        found = discovery.find_resources()
        targets = self._targets(found, ledger, options["resource"])
        if not targets and not ledger.entries:
            raise CommandError("No ModelResource or DjonyResource found in the URLconf.")
        self.step = "building the twins"
        twins = Twins()
        targets = ledger.keep(targets, "its twin cannot be built", lambda t: t.build_twin(twins))
        self.step = "copying the URLconf with the twins mounted"
        module = twin_urlconf({id(t.resource): t.stand_in for t in targets})
        targets = ledger.keep(targets, "its twin cannot be mounted", lambda t: t.mount(module))
        self.step = f"logging in --user {user.get_username()}" if user else "starting the client"
        runner, unknown = self._runner(targets, ledger, user, hook, alias, options)
        self.step = "making the requests"
        self._plan(targets, ledger, runner, alias, options)
        self.step = "sending the requests"
        summaries = {t.uri: report.ResourceSummary(t.uri, t.base) for t in targets}
        by_uri = {t.uri: t for t in targets}
        planned = budget.interleaved([t.requests for t in targets] + self._logged(targets, options))
        queue = planned[: options["max_requests"]]
        deadline = time.monotonic() + options["seconds"]
        bar = Progress("djony_verify", len(queue)) if sys.stderr.isatty() else None
        unsent: list[generation.Request] = []
        try:
            for index, request in enumerate(queue):
                if time.monotonic() > deadline:
                    unsent = queue[index:]
                    break
                summary = summaries[request.resource]
                try:
                    outcome = runner.compare(request, by_uri[request.resource].sides, index % 2)
                except Exception as error:  # noqa: BLE001 - reported with the request, run goes on
                    summary.not_sent.append((str(request), describe(error)))
                else:
                    summary.outcomes.append(outcome)
                if bar:
                    bar.advance()
        finally:
            credentials.VerifyBackend.user = None
        if bar:
            bar.close()
        left = [
            found
            for found in (
                budget.left_out(
                    "--max-requests", options["max_requests"], planned[len(queue) :], planned
                ),
                budget.left_out("--seconds", options["seconds"], unsent, planned),
            )
            if found is not None
        ]
        for uri, summary in summaries.items():
            summary.not_readable = refusals.not_readable(
                summary.outcomes, lambda request, uri=uri: report.request_kind(request, uri)
            )
        self.step = "timing the answers"
        self._time(summaries, by_uri, runner, options)
        self.step = "telling which path serves each resource"
        for target in targets:
            summaries[target.uri].served_by = _served_by(target)
        self.step = "writing the report"
        compared = []
        for target in targets:
            summary = summaries[target.uri]
            if summary.not_sent and not summary.outcomes:
                why = "no request could be sent: {}: {}".format(*summary.not_sent[0])
                ledger.entries.append(NotCompared(target.name, why))
            else:
                compared.append(summary)
        compared_uris = {summary.uri for summary in compared}
        empty = [n for t in targets if t.uri in compared_uris and (n := t.uris_note())]
        notes = [*(f"namespaced: {n}" for n in empty), *unknown, *_error_handling_notes(compared)]
        return self._report(compared, ledger.entries, twins.kept, notes, left, alias, options)

    def _targets(self, found: discovery.Found, ledger: Ledger, prefixes: list[str] | None) -> list:
        """The resources to compare (``--resource`` applied), each once; the others entered
        in ``ledger`` with the reason."""

        def selected(target: Target) -> bool:
            return not prefixes or any(target.uri.startswith(p) for p in prefixes)

        plain = ledger.keep([Target(r) for r in found.skipped], "", Target.read_uri)
        for target in plain:
            if selected(target):
                ledger.entries.append(
                    NotCompared(
                        target.name,
                        "a plain Resource (neither ModelResource nor DjonyResource): it has "
                        "no twin to compare it with",
                    )
                )
        targets = ledger.keep(
            [Target(r, namespace=found.namespaces.get(id(r))) for r in found.resources],
            "get_resource_uri() raised",
            Target.read_uri,
        )
        targets = [t for t in targets if selected(t)]
        targets = ledger.keep(targets, "its list URI cannot be resolved", Target.check_reachable)
        unique, uris = [], set()
        for target in targets:
            # One class registered with two Apis: Tastypie keeps one api_name in its
            # class-level options, so both instances answer at the same URI.
            if target.uri not in uris:
                uris.add(target.uri)
                unique.append(target)
        return unique

    def _user(self, alias: str, options: dict[str, Any]) -> Any:
        username = options["user"]
        if not username:
            return None
        user_model = get_user_model()
        try:
            return user_model._default_manager.db_manager(alias).get_by_natural_key(username)
        except user_model.DoesNotExist:
            raise CommandError(f"--user {username!r}: no such user.") from None

    def _hook(self, options: dict[str, Any]) -> credentials.Hook | None:
        """The ``--credentials`` function."""
        path = options["credentials"]
        if not path:
            return None
        try:
            hook = import_string(path)
        except ImportError as error:
            raise CommandError(f"--credentials {path}: {error}") from None
        if not callable(hook):
            raise CommandError(f"--credentials {path}: {hook!r} is not a function.")
        return hook

    def _runner(
        self,
        targets: list,
        ledger: Ledger,
        user: Any,
        hook: credentials.Hook | None,
        alias: str,
        options: dict[str, Any],
    ) -> tuple[running.Runner, list[str]]:
        """The runner, with what each resource's requests carry for ``--user``; and a note
        for each authentication the command cannot satisfy."""
        found, unknown = {}, []
        if user is not None:
            credentials.VerifyBackend.user = user

            def given(target: Target) -> None:
                authentication = target.resource._meta.authentication
                found[target.uri] = credentials.credentials(authentication, user, alias, hook)

            targets[:] = ledger.keep(targets, "its credentials for --user", given)
            for target in targets:
                if found[target.uri].unknown:
                    unknown.append(
                        f"{target.uri}: {found[target.uri].unknown} is not a stock "
                        f"authentication: the requests are sent without credentials "
                        "(pass --credentials)"
                    )
        runner = running.Runner(alias, found, user, options["host"])
        if user is not None and _sessions_in_use():
            # Logged in as a browser would be: request.user is the user for every
            # resource, also for one whose get_object_list() reads it without a
            # SessionAuthentication of its own.
            runner.login(user)
        return runner, unknown

    def _plan(
        self,
        targets: list,
        ledger: Ledger,
        runner: running.Runner,
        alias: str,
        options: dict[str, Any],
    ) -> None:
        """Each target's requests, and both sides warmed up (imports, URL resolvers: not
        counted); a resource whose requests cannot be made is not compared."""

        def plan(target: Target) -> None:
            generator = generation.ResourceRequests(
                target.resource, alias, options["sample"], uri=target.uri
            )
            requests = list(generator.all())
            if options["writes"]:
                original = target.sides[0]

                def fetch_json(path: str) -> Any:
                    answer, _ = runner.send(original, generation.Request(target.uri, "GET", path))
                    return decode_json(answer.body) if answer.status == 200 else None

                # First, so that --max-requests does not cut them off.
                requests = [
                    *generation.write_requests(target.resource, alias, fetch_json, target.uri),
                    *requests,
                ]
            target.requests = requests

        def warm_up(target: Target) -> None:
            for side in target.sides:
                runner.send(side, generation.Request(target.uri, "GET", target.uri))

        targets[:] = ledger.keep(targets, "its requests cannot be made", plan)
        targets[:] = ledger.keep(targets, "the first request raised", warm_up)

    def _time(self, summaries: dict, by_uri: dict, runner: running.Runner, options: dict) -> None:
        """Each resource's speed (:mod:`tastypie_djony.verify.timing`), within --timing-seconds;
        not of a resource no GET reads (:mod:`tastypie_djony.verify.refusals`). Its
        requests are also timed with the resources answering at once, for the time outside
        their code and their ceiling, and sampled on the DjonyResource side for the share of
        the project's own code (:mod:`tastypie_djony.verify.owners`)."""
        if not options["timing_seconds"]:
            return
        outside = running.Side(
            "outside the resource", outside_urlconf({id(t.resource) for t in by_uri.values()})
        )
        chosen = {}
        for uri, summary in summaries.items():
            if summary.not_readable is not None and summary.not_readable.whole:
                continue
            sides = sorted(by_uri[uri].sides, key=lambda side: side.base != "ModelResource")
            requests = timing.picked(
                summary.outcomes,
                lambda request, uri=uri: report.request_kind(request, uri),
                options["timed_per_resource"],
            )
            chosen[uri] = [(request, [*sides, outside]) for request in requests]

        def send(side: Any, request: Any) -> float:
            return runner.send(side, request)[0].seconds

        deadline = time.monotonic() + options["timing_seconds"]
        with timing.frozen_heap():
            speeds = timing.time_requests(send, chosen, options["rounds"], deadline)
        for uri, speed in speeds.items():
            summaries[uri].speed = speed
        # Then how much of each timed resource's time is the project's own code.
        djony_side = {
            uri: [(request, sides[1]) for request, sides in chosen[uri]]
            for uri, speed in speeds.items()
            if speed is not None
        }
        budget_seconds = max(SAMPLING_SECONDS, options["timing_seconds"] / 10)
        with timing.frozen_heap():
            shares = owners.project_shares(send, djony_side, time.monotonic() + budget_seconds)
        for uri, share in shares.items():
            summaries[uri].own_code = share

    def _logged(self, targets: list, options: dict[str, Any]) -> list[list[generation.Request]]:
        """``--from-log``: the logged GET paths, per resource."""
        if not options["from_log"]:
            return []
        logged: dict[str, list[generation.Request]] = {t.uri: [] for t in targets}
        for request in generation.from_log(Path(options["from_log"]), {u: u for u in logged}):
            logged[request.resource].append(request)
        return [requests for requests in logged.values() if requests]

    def _report(
        self,
        summaries: list[report.ResourceSummary],
        not_compared: list[NotCompared],
        kept: list[Any],
        notes: list[str],
        left: list[budget.LeftOut],
        alias: str,
        options: dict[str, Any],
    ) -> str:
        out = self.stdout
        sent = sum(len(s.outcomes) for s in summaries)
        stopped = any(bound.option == "--seconds" for bound in left)
        vendor = connections[alias].vendor
        out.write(
            f"djony_verify: {sent} requests to {len(summaries)} resources and their twins on "
            f"{vendor} ({alias}), as {options['user'] or 'anonymous'}"
            + (" (stopped by --seconds)" if stopped else "")
        )
        out.write("")
        out.write(report.table(summaries, writes=options["writes"]))
        reasons = [str(n) for n in not_compared]
        not_sent = [(s.uri, *entry) for s in summaries for entry in s.not_sent]
        slower = [s.where_the_time_goes() for s in summaries]
        served = [line for line in map(report.served_line, summaries) if line]
        unread = [f"{s.uri}: {s.not_readable}" for s in summaries if s.not_readable]
        lines = [*(f"not compared: {why}" for why in reasons)]
        lines += [*(f"not readable: {line}" for line in unread), *served]
        lines += [*(f"related kept: {k}" for k in kept), *notes]
        lines += [f"not sent: {request}: {why}" for _, request, why in not_sent]
        lines += [bound.line() for bound in left]
        for note in [*lines, *(line for line in slower if line)]:
            out.write(f"\n{note}")
        different = [o for s in summaries for o in s.different]
        improved = sum(len(s.improved) for s in summaries)
        if improved:
            out.write(
                f"\nimproved: {improved} requests where ModelResource answers 5xx and "
                "DjonyResource a 4xx with an error message (DjonyResource is better there)"
            )
        if different:
            out.write(
                f"\nFirst differences ({min(options['show'], len(different))} of {len(different)}):"
            )
            for outcome in different[: options["show"]]:
                out.write("")
                out.write(report.difference_text(outcome))
        failed = verdict.reason(summaries, reasons, options["user"])
        uncompared = verdict.not_compared_line(
            len(summaries), len(not_compared), len(not_sent), left
        )
        if options["json"]:
            data = report.as_json(
                summaries,
                {"database": alias, "vendor": vendor, "user": options["user"],
                 "stopped_by_seconds": stopped,
                 "left_out": [bound.as_json() for bound in left],
                 "exit_status": 1 if failed else 0,
                 "failure": failed or None, "not_compared": reasons,
                 "not_readable": unread,
                 "not_sent": [{"resource": uri, "request": request, "reason": why}
                              for uri, request, why in not_sent],
                 "related_kept": [str(k) for k in kept], "notes": notes},
            )  # fmt: skip
            Path(options["json"]).write_text(json.dumps(data, indent=2) + "\n")
            out.write(f"\nWrote {options['json']}")
        speedup = report.speedup_line(summaries)
        if speedup:
            out.write(f"\n{speedup}")
        by_kind = report.speedup_by_kind_line(summaries)
        if by_kind:
            out.write(f"\n{by_kind}")
        over_requests = report.requests_line(summaries)
        if over_requests:
            out.write(f"\n{over_requests}")
        ceiling = report.ceiling_line(summaries)
        if ceiling:
            out.write(f"\n{ceiling}")
        own_code = report.own_code_line(summaries)
        if own_code:
            out.write(f"\n{own_code}")
        if not failed:
            out.write("\nEvery answer is the same on both bases.")
        if uncompared:
            out.write(uncompared)
        return failed


def _served_by(target: Target) -> dict[str, str]:
    """Which path serves the DjonyResource side's JSON lists and details (the original's or
    its twin's)."""
    djony = target.resource if target.base == "DjonyResource" else target.stand_in
    served = getattr(djony, "served_by", None)
    return served() if served is not None else {}


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
