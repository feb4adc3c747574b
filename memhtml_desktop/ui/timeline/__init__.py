"""The supersession timeline: a memory's chain of versions on a time axis."""
