"""The search bar: the query field, the search/recall switch, the chips of the active filters."""
