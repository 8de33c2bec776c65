"""Agreement figures of a project, computed by a Celery task and cached per inputs hash.

- ``data``: the project's submitted work as sentence units, and its inputs hash.
- ``jobs``: the cached ``AgreementResult`` and its computation; ``api`` / ``urls``: routes.
"""
