"""Models using third-party fields and managers, as real projects have them.

django-taggit (``TaggableManager``), django-sortedm2m (``SortedManyToManyField``),
django-mptt (``TreeForeignKey``, ``TreeManager``), django-polymorphic
(``PolymorphicModel``), django-model-utils (``StatusField``, ``InheritanceManager``,
``TimeStampedModel``), django-money (``MoneyField``) and django-countries
(``CountryField``), each served by a ModelResource and its DjonyResource twin
(:mod:`tests.thirdparty.api`), and compared in ``test_fields_and_managers.py``.
"""
