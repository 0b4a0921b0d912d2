CREATE TABLE "company_deletions" (
	"company_digest" text PRIMARY KEY NOT NULL,
	"requested_at" timestamp (3) with time zone NOT NULL,
	"purged_at" timestamp (3) with time zone NOT NULL,
	"rows_deleted" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "deletion_requested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "deletion_due_at" timestamp (3) with time zone;--> statement-breakpoint
-- hand-written SQL below (keep at merge)
-- The API key cache (ADR 0011) answers a key with its company's state: a company whose deletion is
-- pending must be refused at once on every instance, so its deletion columns raise the key state too.
DROP TRIGGER "companies_state_update" ON "companies";--> statement-breakpoint
CREATE TRIGGER "companies_state_update" AFTER UPDATE ON "companies" FOR EACH ROW
  WHEN (OLD."plan" IS DISTINCT FROM NEW."plan" OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."deletion_due_at" IS DISTINCT FROM NEW."deletion_due_at")
  EXECUTE FUNCTION "cradle_key_state_changed"();
