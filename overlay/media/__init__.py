"""The picture library: uploads checked by content, stored content-addressed, served safely.

`library` (checks, decode in a worker process, store, who uses what), `api` (`/api/media`),
`svgsafe` (an SVG is rebuilt from an allow-list or refused).
"""
