"""LLM-as-judge runs and rating agreement.

- ``launch``: launching a judge run; ``api``: its route.
- ``rating_stats``: agreement of an item project's rating fields; ``ratings_api``: its route.
"""
