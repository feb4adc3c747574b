"""The reader: one memory in full (header, facets, links, the sanitised article), its parts, the
"Why not this one?" dialog, and the controller that opens, re-reads and reinforces."""
