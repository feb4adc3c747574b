-- The contradiction keys again (domain/contradiction.py, `blocking_keys`): a number written with
-- thousands separators is now one word ("880,500", which the rule read as "880" and "500"), so the
-- keys of a claim holding one changed. Filled through the same function as 0012.
UPDATE files SET contradiction_keys = memhtml_contradiction_keys(gist, frame_key);
