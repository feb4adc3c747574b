"""The review inbox: what changed since you last looked, the store's activity, and a memory's
provenance in the reader (docs/review.md). Its core is `history/`; its jobs are `ops/review.py`."""
