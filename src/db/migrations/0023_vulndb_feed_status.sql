ALTER TABLE "vulndb_sources" ALTER COLUMN "sha256" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "vulndb_sources" ALTER COLUMN "imported_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "vuln_matches" ADD COLUMN "cvss_source" text;--> statement-breakpoint
ALTER TABLE "vulndb_sources" ADD COLUMN "checked_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "vulndb_sources" ADD COLUMN "last_error" text;--> statement-breakpoint
CREATE INDEX "vulndb_records_aliases_idx" ON "vulndb_records" USING gin ("aliases");