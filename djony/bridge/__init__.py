"""The bridge: Pony on Django's connections (backends, connection, transactions).

Below the registry, above :mod:`djony.meta`; nothing here knows about entities.
(Named so that the function :func:`djony.db`, a Pony ``Database`` of an alias,
keeps its name.)

- :mod:`djony.bridge.backends`: one module per database vendor (its Pony provider
  and converters, what is done to each connection Django opens, how its
  errors are told apart, the words its refusals use);
- :mod:`djony.bridge.converters`: the value converters the backends share (values
  stored as Django stores them); :mod:`djony.bridge.fieldvalues`: custom fields
  that convert their own values;
- :mod:`djony.bridge.connection`: a Pony ``Database`` bound to Django's connection
  of an alias (a pool handing out ``connections[alias]``, providers whose
  transaction hooks defer to Django);
- :mod:`djony.bridge.transactions`: where a writing Pony session runs in Django's
  transactions.
"""
