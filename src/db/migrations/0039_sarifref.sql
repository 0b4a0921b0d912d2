CREATE TABLE "finding_transitions" (
	"finding_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"scan_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"severity" text,
	"level" text,
	"security_severity" text,
	"message" text,
	"artifact_uri" text,
	"start_line" integer
);
--> statement-breakpoint
CREATE TABLE "sarif_stages" (
	"product_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"scan_id" uuid NOT NULL,
	"heartbeat_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "finding_transitions" ADD CONSTRAINT "finding_transitions_finding_id_findings_id_fk" FOREIGN KEY ("finding_id") REFERENCES "public"."findings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_transitions" ADD CONSTRAINT "finding_transitions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sarif_stages" ADD CONSTRAINT "sarif_stages_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sarif_stages" ADD CONSTRAINT "sarif_stages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "finding_transitions_scan_idx" ON "finding_transitions" USING btree ("scan_id");--> statement-breakpoint
CREATE INDEX "sarif_stages_company_idx" ON "sarif_stages" USING btree ("company_id");--> statement-breakpoint
alter table "finding_transitions" enable row level security;--> statement-breakpoint
alter table "finding_transitions" force row level security;--> statement-breakpoint
create policy "finding_transitions_tenant" on "finding_transitions" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
alter table "sarif_stages" enable row level security;--> statement-breakpoint
alter table "sarif_stages" force row level security;--> statement-breakpoint
create policy "sarif_stages_tenant" on "sarif_stages" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));--> statement-breakpoint
-- The compliance evidence reads transitions through the view below: watched like the findings (src/db/version-domains.ts).
CREATE TRIGGER "finding_transitions_compliance_insert" AFTER INSERT ON "finding_transitions" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "finding_transitions_compliance_update" AFTER UPDATE ON "finding_transitions" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "finding_transitions_compliance_delete" AFTER DELETE ON "finding_transitions" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
CREATE TRIGGER "finding_transitions_compliance_truncate" AFTER TRUNCATE ON "finding_transitions" FOR EACH STATEMENT EXECUTE FUNCTION cradle_data_changed('compliance');--> statement-breakpoint
-- ADR 0025: a SARIF push writes its new findings and its fixes and reopenings ahead of the
-- transaction that stores its scan. What readers see is this view: a finding whose first scan is
-- not stored is absent, and a stored scan's transition not yet folded into its finding is applied.
-- security_invoker: the reader's row-level security applies to the tables beneath, as to a table.
CREATE VIEW "findings_published" WITH (security_invoker = true) AS
SELECT f."id", f."company_id", f."product_id", f."tool", f."rule_id", f."fingerprint",
  CASE t."kind" WHEN 'fix' THEN 'fixed' WHEN 'reopen' THEN 'open' ELSE f."state" END AS "state",
  CASE WHEN t."kind" = 'reopen' THEN t."severity" ELSE f."severity" END AS "severity",
  CASE WHEN t."kind" = 'reopen' THEN t."level" ELSE f."level" END AS "level",
  CASE WHEN t."kind" = 'reopen' THEN t."security_severity" ELSE f."security_severity" END AS "security_severity",
  CASE WHEN t."kind" = 'reopen' THEN t."message" ELSE f."message" END AS "message",
  CASE WHEN t."kind" = 'reopen' THEN t."artifact_uri" ELSE f."artifact_uri" END AS "artifact_uri",
  CASE WHEN t."kind" = 'reopen' THEN t."start_line" ELSE f."start_line" END AS "start_line",
  f."first_seen_scan_id", f."first_seen_at",
  CASE t."kind" WHEN 'fix' THEN t."scan_id" WHEN 'reopen' THEN NULL ELSE f."fixed_scan_id" END AS "fixed_scan_id",
  CASE t."kind" WHEN 'fix' THEN t."at" WHEN 'reopen' THEN NULL ELSE f."fixed_at" END AS "fixed_at",
  f."reopen_count" + CASE WHEN t."kind" = 'reopen' THEN 1 ELSE 0 END AS "reopen_count",
  COALESCE(t."at", f."updated_at") AS "updated_at"
FROM "findings" f
LEFT JOIN ("finding_transitions" t JOIN "sarif_scans" ts ON ts."id" = t."scan_id") ON t."finding_id" = f."id"
WHERE EXISTS (SELECT 1 FROM "sarif_scans" s WHERE s."id" = f."first_seen_scan_id");
