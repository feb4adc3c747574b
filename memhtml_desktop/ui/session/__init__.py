"""What the person is asking and how work reaches the store, shared by every pane.

`search.py` the Qt-free search session (query, scope, mode, limit, budget, history);
`scope_edits.py` the pure scope edits; `changes.py` the StoreChange every pane listens to;
`jobs.py` the typed background jobs; `runner.py` the thread pools and `StoreEvents`;
`driver.py` the debounce and the search job; `watch_bridge.py` the watcher's callbacks as Qt
signals; `context.py` what a pane's controller is handed.
"""
