"""memhtml desktop: browse, search and curate a memhtml store."""

__version__ = "0.1.0"
