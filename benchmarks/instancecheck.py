"""What taking entity objects for model instances costs ``isinstance`` (issue 18).

``python -m benchmarks.instancecheck`` times ``isinstance`` on Django instances and
on entity objects with djony's ``ModelBase.__instancecheck__`` installed, against
Django's own (``type.__instancecheck__``), in nanoseconds per call (best of 7).
No database: the objects are built in memory.
"""

from __future__ import annotations

import os
import timeit

import django


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    django.setup()
    from django.contrib.auth.models import Permission, User
    from django.db import models
    from django.db.models.base import ModelBase

    import djony
    from djony.objects import identity

    djony.db()  # builds the mapping, which installs the check
    user = User(pk=1, username="u")
    entity_class = User.p
    entity = entity_class.__new__(entity_class)
    cases = {
        "isinstance(django, User)  exact class": lambda: isinstance(user, User),
        "isinstance(django, Model)": lambda: isinstance(user, models.Model),
        "isinstance(django, Permission) (False)": lambda: isinstance(user, Permission),
        "isinstance(entity, User)": lambda: isinstance(entity, User),
        "isinstance(entity, Model)": lambda: isinstance(entity, models.Model),
        "isinstance(3, Model) (False)": lambda: isinstance(3, models.Model),
    }
    number = 200_000

    def best(fn) -> float:
        return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e9

    installed = {name: best(fn) for name, fn in cases.items()}
    del ModelBase.__instancecheck__  # Django's own, for comparison
    plain = {name: best(fn) for name, fn in cases.items() if "entity" not in name}
    identity.install_instance_check()
    print(f"{'call':42} {'djony ns':>9} {'Django ns':>10}")
    for name, ns in installed.items():
        print(f"{name:42} {ns:9.0f} {plain.get(name, float('nan')):10.0f}")


if __name__ == "__main__":
    main()
