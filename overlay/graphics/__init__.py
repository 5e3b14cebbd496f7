"""The graphics: what can be on air and how it looks.

`game` (the on-air graphics and their data: the path a graphics change takes), `show` (the show
graphics of the rundown, their layers and stacking order), `themes` (colours and fonts).
"""
