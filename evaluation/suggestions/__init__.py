"""Suggestions: a finished run's labels offered to a project's annotators.

- ``services``: turning runs into suggestions, decisions, the report; ``api``: routes.
"""
