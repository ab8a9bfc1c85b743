"""Tests of ``manage.py djony_verify``: each module mounts its own URLconf of resources."""
