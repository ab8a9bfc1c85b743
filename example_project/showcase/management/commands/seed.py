"""``manage.py seed --users N [--reset]``: the demo users and permissions; prints the demo
user's name (``demo``) and API key, and the ``djony_verify`` command to run as that user."""

from __future__ import annotations

import time
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from example_project.showcase import seeding


class Command(BaseCommand):
    help = (
        "Fill the database with N users (default 1000) with a few permissions each; "
        "user 3 gets 159; user 1 is the demo superuser 'demo'. Deterministic; does nothing "
        "if the same data is there. Prints the demo user's API key."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=1000, help="how many users (default 1000)")
        parser.add_argument("--reset", action="store_true", help="delete all existing users first")
        parser.add_argument(
            "--database",
            metavar="URL",
            help="database URL (read by manage.py; same as DATABASE_URL)",
        )
        parser.add_argument("--no-migrate", action="store_true", help="do not run migrate first")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["no_migrate"]:
            call_command("migrate", verbosity=0, interactive=False)
        started = time.monotonic()
        try:
            result = seeding.seed(users=options["users"], reset=options["reset"])
        except seeding.SeedError as error:
            raise CommandError(str(error)) from None
        if result.created:
            self.stdout.write(
                f"Seeded {result.users} users and {result.user_permission_rows} user-permission "
                f"rows ({result.permissions} permissions; user {seeding.SPECIAL_USER_ID} has "
                f"{seeding.SPECIAL_USER_PERMISSIONS}) in {time.monotonic() - started:.1f} s."
            )
        else:
            self.stdout.write(f"Already seeded: {result.users} users; nothing to do.")
        entries = seeding.seed_entries(authors=min(50, result.users))
        self.stdout.write(
            f"Tastypie's tutorial: {entries} entries (/api/v2/entry/, /api/v3/entry/, "
            "read with the API key below)."
        )
        demo = seeding.demo_api_key()
        if demo:
            username, key = demo
            self.stdout.write(
                f"Demo user: {username} (user {seeding.DEMO_USER_ID}, a superuser), API key "
                f"{key}\n"
                f'  writes on /api/v2/ and /api/v3/: curl -H "Authorization: ApiKey '
                f'{username}:{key}" ...\n'
                f"  every resource against its twin: manage.py djony_verify --user {username}"
            )
