"""Static files: whitenoise's compressed, hashed storage, with each file's URL worked out once.

`{% static %}` asks the storage for a URL on every use (four a page: the style sheet, the icon,
htmx and site.js). The manifest storage finds the hashed name in its manifest and builds the URL
each time; the answer cannot change while the process runs (the manifest is read at start), so
it is kept per name.
"""
from django.conf import settings
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._urls = {}

    def url(self, name, force=False):
        # What the answer depends on besides the name: DEBUG (unhashed names) and the manifest
        # (a collectstatic in this process writes a new one).
        key = (name, force, settings.DEBUG, self.manifest_hash)
        if key not in self._urls:
            self._urls[key] = super().url(name, force)
        return self._urls[key]
