"""After the show: what was on air, drawn again from the journal.

`journal` reads a data folder's games and journal read-only (a render never writes the live
server's database), `timeline` replays one game's log into its public state at any instant,
`asrun` is the as-run log (graphics in and out, OSC cues, questions with their sector and author),
`render` draws a graphic frame by frame in headless Chromium under a clock it controls and
encodes it with ffmpeg, `jobs` runs renders for the panel in processes of their own, `api` is the
door (`/api/games/<id>/as-run`, `/api/rundowns/<id>/as-run`, `/api/renders`).
"""
