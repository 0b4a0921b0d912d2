CREATE TABLE "kev_awareness" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"vuln_key" text NOT NULL,
	"cve_ids" text[] NOT NULL,
	"opened_at" timestamp (3) with time zone NOT NULL,
	"state" text NOT NULL,
	"decided_at" timestamp (3) with time zone,
	"decided_by" text,
	"reason" text,
	"report_id" uuid
);
--> statement-breakpoint
ALTER TABLE "kev_awareness" ADD CONSTRAINT "kev_awareness_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kev_awareness" ADD CONSTRAINT "kev_awareness_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kev_awareness_product_vuln_key" ON "kev_awareness" USING btree ("product_id","vuln_key");--> statement-breakpoint
CREATE INDEX "kev_awareness_company_state_idx" ON "kev_awareness" USING btree ("company_id","state");--> statement-breakpoint
-- hand-written SQL below (keep at merge)
alter table "kev_awareness" enable row level security;--> statement-breakpoint
alter table "kev_awareness" force row level security;--> statement-breakpoint
create policy "kev_awareness_tenant" on "kev_awareness" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
