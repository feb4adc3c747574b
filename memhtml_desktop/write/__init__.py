"""The write core: every change to the store, planned in full, then made through the user's git.

The front door is `curator.Curator`; see docs/writing.md. Never imports Qt, `ui` or `cli`.
"""
