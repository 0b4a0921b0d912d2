-- The aliases index without a pending list (fastupdate off): PGlite never vacuums, so every entry
-- imported stayed in the list and each probe read it whole (ADR 0029). Rebuilt, not altered: an
-- ALTER would keep the entries already pending.
DROP INDEX "vulndb_records_aliases_idx";--> statement-breakpoint
CREATE INDEX "vulndb_records_aliases_idx" ON "vulndb_records" USING gin ("aliases") WITH (fastupdate=false);