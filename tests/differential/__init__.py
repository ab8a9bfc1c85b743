"""Differential tests: DjonyResource (v3, v3o) against ModelResource (v2)."""
