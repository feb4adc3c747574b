"""The html layer: a memory file's bytes in, memhtml's exact index rows and checks out.

- `project(path, data, indexed_at)` -> `Projection`: what the indexer writes (or why it won't).
- `read_document(path, data)` -> `MemoryDocument`: what the reader pane shows, valid or not.
- `render_safe_html(data)`: the article as inert Qt rich text.

Modules, in pipeline order: `tree` (one lexbor walk into a flat document), `constraints`
(violations, warnings), `canonical` (text fields, content hash), `extract` (article facts, head
values), `rows` and `chunking` and `frame` (row rules), `project` (assembly). `jsnum` and
`datetime_rule` hold the JavaScript semantics memhtml's TypeScript relies on. No Qt, no SQLite.
"""

from memhtml_desktop.html.detail import MemoryDocument, read_document
from memhtml_desktop.html.project import Projection, decode, project
from memhtml_desktop.html.render import render_safe_html

__all__ = ["MemoryDocument", "Projection", "decode", "project", "read_document", "render_safe_html"]
