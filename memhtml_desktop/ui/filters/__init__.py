"""The filters pane: every filter value with its count for the current query (model, panel, controller)."""
