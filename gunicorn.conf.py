"""gunicorn's settings for this project, read by gunicorn from the directory it starts in
(`make run`, the README's deployment and the bench all start it here).

gunicorn sends `Server: gunicorn` with every answer and has no setting for it; the name of the
software behind a site helps only those looking for its weaknesses. The header keeps a neutral value.
"""
import gunicorn.http.wsgi

gunicorn.http.wsgi.SERVER = "Fromatoz"
