"""What djony reads from Django's model metadata (``_meta``), and nothing else.

The lowest layer of djony: no Pony database, no connection, no entity.

- :mod:`djony.meta.types`: the field-type table (Django internal type -> how
  Pony declares the column), extended by ``DJONY_DATA_TYPES``;
- :mod:`djony.meta.names`: the names entities and their reverse attributes get;
- :mod:`djony.meta.models`: which models get an entity, one cached description
  per model, and :func:`~djony.meta.models.model_of` (the model of an object);
- :mod:`djony.meta.compat`: what differs between the Django versions djony
  supports (the only place a version is checked).
"""
