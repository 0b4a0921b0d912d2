-- Each affected entry carries its record's aliases, so matching reads one table (ADR 0029 addendum).
-- Nullable: the previous release, still running during a rolling upgrade, writes entries without
-- them, and the matcher reads the record's then. Filled here from the records for a store imported
-- before. Entries of a withdrawn record never match (the import keeps such a record without
-- entries); any left from before are removed.
ALTER TABLE "vulndb_affected" ADD COLUMN "aliases" text[];--> statement-breakpoint
UPDATE "vulndb_affected" a SET "aliases" = r."aliases" FROM "vulndb_records" r WHERE r."id" = a."record_id";--> statement-breakpoint
DELETE FROM "vulndb_affected" a USING "vulndb_records" r WHERE r."id" = a."record_id" AND r."withdrawn" IS NOT NULL;
