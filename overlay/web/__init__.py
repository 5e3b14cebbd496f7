"""The web doors: the Flask app and what it serves over HTTP.

`app` (builds the app: the composition root), `services` (what one app holds: the store, the live
games, the graphics, the libraries, who is connected), `server` (the WSGI server and its connection
limits), `api` (the JSON API), `pages` (overlay pages), `live` (the public `/live` page), `auth`
(operators' login, tokens, throttle — the login state lives here alone), `proxy` (trusted proxy
headers).
"""
