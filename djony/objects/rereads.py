"""Rows read again in a session take the stored values, as Django's queries do.

Pony remembers which attributes of an object were read in a session (its "read
bits") and refuses a later load that finds one of them changed in the database
(``UnrepeatableReadError``), and its optimistic writes add the read values to the
``WHERE`` of an ``UPDATE``.  Django has neither: each query returns what is stored
now, and ``save()`` updates by primary key.  A ``dehydrate`` that updates the row it
reads (``Note.objects.filter(pk=...).update(views=F("views") + 1)``) and then reads
a related manager returning that row again, another client updating rows while a
request's hooks read them, or a NaN float (never equal to itself, so every load
looks like a change) must not be a 500.

:func:`read_as_django` clears what Pony keeps those bits with, for every entity of a
database, once its mapping is generated: reading an attribute no longer marks it,
so a load always takes the stored values for what the request has not written
itself (Pony's "written" bits, which a load never overwrites, are untouched).  The
object of a row is the one object of that row in the session (Pony's identity
map): after a re-read, ``bundle.obj`` shows the new values too, where a Django
instance read before would keep the old ones.
"""

from __future__ import annotations

from typing import Any


def read_as_django(database: Any) -> None:
    """No repeatable-read check (nor optimistic check) for ``database``'s entities."""
    for entity in database.entities.values():
        entity._bits_except_volatile_ = dict.fromkeys(entity._bits_except_volatile_, 0)
        entity._all_bits_except_volatile_ = 0
