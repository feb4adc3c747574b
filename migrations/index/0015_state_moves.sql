-- State rows still to follow their moved memories (index/indexer.py, `_follow_state`). A move is
-- written here in the same transaction as the memory's index rows; the row is taken away once the
-- state row followed (or could not: the destination holds its own, or the source none). A run killed
-- between the index commit and the state.db write leaves the move here for the next run, instead of
-- the memory's reads stranded at its old name.
CREATE TABLE state_moves (
  id INTEGER PRIMARY KEY,
  src TEXT NOT NULL,
  dst TEXT NOT NULL
);
