"""Curation in the window: the dialogs that correct, archive, link, write and supersede memories,
each previewing the files and the commit before making it (the write core does the work)."""
