"""Item runs: models answering one form field of an item project.

- ``runs``: an item run's items, prompts, parser and scoring; ``launch``: launching them.
- ``leaderboard``: an item project's results (models, variants, humans); ``api``: its route.
"""
