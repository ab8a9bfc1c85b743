"""One Django model -> one Pony entity declaration.

:func:`~djony.mapping.entities.declare_entities` reads the ``_meta`` of every
concrete model and declares, in one Pony ``Database``, an entity over the same
table: the same columns, the same relations (with Django's reverse accessor
names), the same defaults.  Nothing here touches the database; the builder
(:mod:`djony.build`) binds the database and generates the mapping without
creating or checking tables, and the system checks (:mod:`djony.checks`)
declare into a throwaway database.

What Pony cannot express natively is built from Django's metadata:

* multi-table inheritance: the child's primary key is a relation to the
  parent, and the parent's fields are properties on the child that go
  through that link (:attr:`~djony.mapping.info.EntityInfo.paths` says how to
  reach each field in a query);
* a ``ForeignKey`` with ``to_field``: the raw column is an attribute named
  after Django's ``attname``, and the relation a read-only property;
* an explicit ``through`` model: an entity of its own, the many-to-many field
  a property returning a Pony query;
* ``on_delete``, ``auto_now`` and ``db_default``: hooks on the entity (see
  :mod:`djony.objects.deletion`, :mod:`djony.objects.saving`).

- :mod:`djony.mapping.entities`: the declarations;
- :mod:`djony.mapping.info`: what is recorded about each mapped model.
"""
