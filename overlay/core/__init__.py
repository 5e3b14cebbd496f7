"""The game core: a live game's one path in and its record.

`session` (execute a command: decide with the pure rules, commit the events to the log, then hand
the change to the transports; replay, undo, timers), `store` (SQLite: event log, games, settings),
`views` (the one function that makes the public view, and the operator's), `clock` (the server's
time). Imports the rules; never Flask, sockets or the transports.
"""
