-- The keys a memory's claim shares with every claim that can contradict it (domain/contradiction.py,
-- `blocking_keys`: its frame key, its content words with one value taken out, its words without a
-- negation or a qualifier). Search's newer-first step (domain/newer_first.py) groups one query's
-- candidates by them and judges only the pairs that share one: a 30-candidate pool has 435 pairs,
-- and judging every pair with the rule cost 50-130 ms a search on a conflicting-fact store, the
-- keys computed per query 4-7 ms; read from here the grouping costs a few hundredths of one.
--
-- Derived from `gist` and `frame_key` alone, newline-separated, '' for a memory without a claim.
-- The indexer writes it with every row (index/writer.py); this migration fills it for an index
-- built before it, through memhtml_contradiction_keys(), the same function, registered on every
-- connection (index/db.py). Not memhtml's: appended after its columns, like 0007's instants.
ALTER TABLE files ADD COLUMN contradiction_keys TEXT NOT NULL DEFAULT '';

UPDATE files SET contradiction_keys = memhtml_contradiction_keys(gist, frame_key);
