"""The typed operations, Qt-free: what the window and the command line ask of a store.

`jobs.py` the base `Job` (kind, pool, `run(store, cancelled, progress)`, the `StoreChange` it made)
and the session's reads and index maintenance; `changes.py` the `StoreChange`; `curators.py` the one
write core per store; `curate.py` the curation's plan, apply, undo and recover; `workbench.py` the
relevance workbench's calls; `backend.py` the child process the heavy ones run in (index passes,
reconciliation, the workbench's runs and scans), with progress and cancellation carried back.
`ui/` keeps only the Qt glue: the `Runner` that puts a job on a pool and its answer on the GUI thread.
"""
