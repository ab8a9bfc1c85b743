"""Multi-table inheritance: a child entity that reaches its parents' fields.

Django stores a multi-table child in its own table, linked to the parent's
row by a one-to-one ``<parent>_ptr`` primary key.  The child's entity gets:

* a property per inherited field, readable and writable on objects and
  usable in queries (``select(r for r in Restaurant.p if r.name == "x")``),
  see :func:`inherited_property`;
* a constructor (:func:`djony.objects.attributes.constructor`) that accepts the
  parents' fields too and creates the parent rows first (:func:`create_parents`), as
  ``Restaurant.objects.create(name=..., serves_pizza=...)`` does.
"""

from __future__ import annotations

from typing import Any

from djony.objects.codegen import attribute_path, compile_lambda


def inherited_property(link: str, path: tuple[str, ...]) -> property:
    """A property reading and writing ``self.<link>.<path...>``.

    The getter is compiled (see :mod:`djony.objects.codegen`) so that Pony, which
    decompiles a property's bytecode, can translate it inside queries.
    """
    getter = compile_lambda("self", "self." + attribute_path(link, *path))

    def setter(self: Any, value: Any) -> None:
        owner = getattr(self, link)
        for name in path[:-1]:
            owner = getattr(owner, name)
        setattr(owner, path[-1], value)

    return property(getter, setter)


def create_parents(entity: Any, kwargs: dict[str, Any], links: list[tuple[str, str]]) -> None:
    """Move the parents' fields out of ``kwargs`` into new parent rows.

    ``links`` lists, per parent, the link attribute and the parent's entity
    name.  A keyword that is not an attribute of the child goes to the parent
    that knows it (the parent's constructor handles grandparents the same
    way), and ``kwargs[link]`` becomes the new parent object.
    """
    for link, parent_name in links:
        parent = entity._database_.entities[parent_name]
        info = parent._djony_info_
        accepted = set(parent._adict_) | set(info.paths) | set(info.unmapped)
        parent_kwargs = {
            name: kwargs.pop(name)
            for name in list(kwargs)
            if name not in entity._adict_ and name in accepted
        }
        if link in kwargs:
            if parent_kwargs:
                raise TypeError(
                    f"{entity.__name__}: pass either {link}= or the fields of "
                    f"{parent_name} ({', '.join(sorted(parent_kwargs))}), not both."
                )
            continue
        kwargs[link] = parent(**parent_kwargs)
