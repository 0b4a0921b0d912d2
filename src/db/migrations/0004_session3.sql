CREATE TABLE "attestations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"product_id" uuid,
	"requirement_id" text NOT NULL,
	"verdict" text NOT NULL,
	"justification" text NOT NULL,
	"evidence_url" text,
	"author" text NOT NULL,
	"actor" text NOT NULL,
	"attested_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"withdrawn_at" timestamp (3) with time zone,
	"withdrawn_by" text,
	CONSTRAINT "attestations_verdict_check" CHECK ("attestations"."verdict" in ('met', 'not_applicable')),
	CONSTRAINT "attestations_justification_check" CHECK (length(btrim("attestations"."justification")) > 0)
);
--> statement-breakpoint
CREATE TABLE "product_cra_facts" (
	"product_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"category" text DEFAULT 'default' NOT NULL,
	"placed_on_market_at" timestamp (3) with time zone,
	"support_ends_at" timestamp (3) with time zone,
	"support_justification" text,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_cra_facts" ADD CONSTRAINT "product_cra_facts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_cra_facts" ADD CONSTRAINT "product_cra_facts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attestations_company_requirement_idx" ON "attestations" USING btree ("company_id","requirement_id");--> statement-breakpoint
CREATE INDEX "product_cra_facts_company_idx" ON "product_cra_facts" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries" USING btree ("webhook_id","next_attempt_at") WHERE "webhook_deliveries"."state" = 'pending';