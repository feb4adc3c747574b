"""The Problems tab: files that fail memhtml's constraints, duplicates and warnings."""
