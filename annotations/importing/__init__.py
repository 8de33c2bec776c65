"""Getting datasets into projects.

- ``formats``: the file formats, each a reader (and the writer the exports use): MAFALDA,
  doccano, plain text, CSV, FLUB, SmartyPat, item columns, Hugging Face dataset folders
  (``hf``); no Django import;
- ``sentences``, ``split_ahead``: sentence splitting of imported texts (``split_ahead`` in
  worker processes ahead of the import);
- ``datasets``: all-or-nothing imports into annotation projects: texts, a MAFALDA gold
  standard, one annotator's doccano annotations (``label_spans``: their label triples grouped
  into spans);
- ``label_studio``: a Label Studio JSON export (``formats.label_studio``): annotators'
  annotations snapped to sentences, predictions as imported runs (through a hook);
- ``hf``: a Hugging Face dataset folder (``formats.hf``) back into a project: a new gold
  version, or items;
- ``items``: all-or-nothing imports of items (FLUB, SmartyPat, mapped columns) into item
  projects;
- ``jobs``: imports started in the browser (``ImportJob``): created, run in the request or
  queued, validated first (``validation``: every bad record listed), then imported;
- ``liveness``: the heartbeat of a running import job, and the sweep that fails a dead one.
- ``parsing``, ``untrusted``: uploaded files decoded in the bounded child process
  (``fallacy_platform.bounded``) before this process reads them (archives and Parquet in
  ``untrusted``, every other format in ``parsing``).
"""
