"""The API kit every REST view of the project uses, whichever app it belongs to:

- ``lookups``: a project or document by id, as a 404 when the user may not see it (existence
  does not leak), and ``require`` for a ``policy.may_*`` answer (a 403);
- ``mixins``: the services' Django exceptions as HTTP answers (404, 400) and 409 bodies;
- ``serializers``: the ``{"detail": ...}`` shape, the error answers views document, and the
  help texts of fields both apps share;
- ``negotiation``: views whose ``?format=`` names a file format, not a renderer;
- ``pagination``: strict limit/offset pagination (the default of every list).

The apps' views import from here and never from each other's views."""
