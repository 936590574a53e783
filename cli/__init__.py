"""The ``sasaki`` command."""
