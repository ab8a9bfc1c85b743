"""What user code gets from DjonyResource: the objects handed to hooks and authorization are
the model's Django instances (to Django's ORM too), and rows read again are read as they are."""
