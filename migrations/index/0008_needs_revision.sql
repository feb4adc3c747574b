-- The memories flagged `memhtml-needs-revision`: the quota ledgers' pending account holds them
-- whatever the query asks (index/shape_reads.py), and without an index finding the few flagged
-- among 20,000 rows walked the whole table (~200 ms). Partial: only flagged rows are in it.
CREATE INDEX IF NOT EXISTS files_needs_revision ON files (path) WHERE needs_revision = 1;
