"""The objects user code sees, and the lists, managers and rules behind them.

Above the registry (objects find their entity and database there), below the
mapping (which declares entities from the parts here).

- What an object is: :mod:`~djony.objects.instances` (the model's behaviour on
  an entity object), :mod:`~djony.objects.identity` (``isinstance``, ``==``,
  ``hash``), :mod:`~djony.objects.pickling`, :mod:`~djony.objects.proxies`,
  :mod:`~djony.objects.descriptor` (``Model.p``).
- Its attributes: :mod:`~djony.objects.attributes`,
  :mod:`~djony.objects.relations`, :mod:`~djony.objects.inheritance`,
  :mod:`~djony.objects.codegen`; related managers:
  :mod:`~djony.objects.managers`.
- Lists of objects: :mod:`~djony.objects.querysets` (``PonyQuerySet``),
  :mod:`~djony.objects.rows`, :mod:`~djony.objects.pages` (the one page
  store per session), :mod:`~djony.objects.sessions`,
  :mod:`~djony.objects.rereads`.
- Django's rules: :mod:`~djony.objects.deletion` (``on_delete``),
  :mod:`~djony.objects.saving` (``auto_now``, ``db_default``, assignments that
  are not saved).
- SQL kept between requests: :mod:`~djony.objects.compiled`,
  :mod:`~djony.objects.independent`, :mod:`~djony.objects.kept`.
"""
