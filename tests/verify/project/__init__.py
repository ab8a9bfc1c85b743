"""A small project for ``djony_verify``: models with every kind of relation, and
resources with every related field Tastypie has (:mod:`.resources`, :mod:`.urls`)."""
