"""The store's history, read for a curator (Qt-free): the review inbox, provenance, activity.

Every change to a memhtml store is a commit with an author, a time, a message and trailers; this
package reads them back as a curator thinks of them (docs/review.md):

- `review_range` / `list_changes` / `read_changes`: the changes since the curator's review mark as
  memory-level events (`Change`: new, edited, corrected, archived, linked, task, removed);
- `review_done` / `accept`: move the mark (a ref of this app's own, `mark.py` says why);
- `change_detail`: the claim before and after and the fields that changed, for one event;
- `provenance_of`: who wrote a memory and when, the commits that changed it since, its session;
- `store_activity`: writes per day or week by kind and author, and what is read (the state plane).

It reads git through the write core's git layer (`write/git.py`) and asks the index through
`index/activity.py`; it never writes the store (Revert goes through the write core's Curator).
This package is its only door (import contract `history-is-the-door`).
"""

from memhtml_desktop.history.activity import Activity, Bucket, FolderReads, store_activity
from memhtml_desktop.history.detail import ChangeDetail, FieldChange, change_detail
from memhtml_desktop.history.events import KINDS, SUMMARY, Change
from memhtml_desktop.history.mark import REF, read_mark
from memhtml_desktop.history.provenance import Provenance, Touch, provenance_of
from memhtml_desktop.history.review import (
    Done,
    HeadState,
    ReviewError,
    ReviewRange,
    accept,
    author_filter,
    commits_after,
    head_state,
    list_changes,
    read_changes,
    review_done,
    review_range,
)
from memhtml_desktop.write.git import Git, GitError

__all__ = [
    "KINDS",
    "REF",
    "SUMMARY",
    "Activity",
    "Bucket",
    "Change",
    "ChangeDetail",
    "Done",
    "FieldChange",
    "FolderReads",
    "Git",
    "GitError",
    "HeadState",
    "Provenance",
    "ReviewError",
    "ReviewRange",
    "Touch",
    "accept",
    "author_filter",
    "commits_after",
    "change_detail",
    "head_state",
    "list_changes",
    "provenance_of",
    "read_changes",
    "read_mark",
    "review_done",
    "review_range",
    "store_activity",
]
