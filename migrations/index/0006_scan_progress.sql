-- Whether the index has ever seen the whole store. A search on an index that a full scan has
-- not completed (a first build in progress, or only `read` of one file on a fresh index) must say
-- it is incomplete, with how far it got, instead of presenting a partial ranking as the store's.

-- scanned_at: when the last full scan finished (NULL: never). scan_started_at / scan_seen: when the
-- latest full scan started and how many memory files it found on disk.
ALTER TABLE index_state ADD COLUMN scanned_at TEXT;
ALTER TABLE index_state ADD COLUMN scan_started_at TEXT;
ALTER TABLE index_state ADD COLUMN scan_seen INTEGER;

-- An index that predates this column and holds files was built by full scans: call it complete.
UPDATE index_state SET scanned_at = updated_at
WHERE id = 1 AND updated_at IS NOT NULL AND EXISTS (SELECT 1 FROM files);
