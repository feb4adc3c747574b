"""The ranked results: the table model over a SearchResult, its delegates (score bars), the view
with its archived-matches banner, and the controller that feeds it from the session."""
