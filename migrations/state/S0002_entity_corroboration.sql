-- memhtml's S0002: the corroboration counter for machine-proposed entity merges. This app never
-- writes it; it exists so a state plane created here is the one memhtml would have created.

CREATE TABLE state.entity_corroboration (
  entity_type    TEXT NOT NULL,
  alias_name     TEXT NOT NULL,
  canonical_name TEXT NOT NULL,
  detections     INTEGER NOT NULL DEFAULT 1 CHECK (detections >= 1),
  confirmed      INTEGER NOT NULL DEFAULT 0 CHECK (confirmed IN (0,1)),
  promoted       INTEGER NOT NULL DEFAULT 0 CHECK (promoted IN (0,1)),
  updated_at     TEXT NOT NULL,
  PRIMARY KEY (entity_type, alias_name, canonical_name)
);
CREATE INDEX state.entity_corroboration_pending ON entity_corroboration (entity_type, promoted);
