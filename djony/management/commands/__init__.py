"""``manage.py djony_mapping``: one module per command, found by Django by its name."""
