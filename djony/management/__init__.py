"""djony's management commands (``djony_mapping``), for ``manage.py``."""
