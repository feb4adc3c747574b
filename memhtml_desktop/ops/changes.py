"""The `StoreChange` every pane listens to (defined in `domain/changes.py`, so the write core can
compute the change a write made and hand it back with its answer: `Applied.change`)."""

from memhtml_desktop.domain.changes import StoreChange

__all__ = ["StoreChange"]
