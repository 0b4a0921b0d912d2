-- Row-level security, the second wall between companies (ADR 0009). Cradle tells each pooled
-- connection the scope of the code using it: cradle.system = 'on' for its own cross-company work
-- (workers, operator, group commits), else cradle.company_id = the one company a request is for.
-- A connection told nothing, or told no company, sees no tenant row and can write none. Policies
-- are forced, so they bind the tables' owner too; only superusers and BYPASSRLS roles pass, and
-- Cradle does not run its queries as one of those (src/db/client.ts).
create function cradle_row_visible(row_company uuid) returns boolean
  language sql stable parallel safe
  as $$ select current_setting('cradle.system', true) = 'on' or row_company = nullif(current_setting('cradle.company_id', true), '')::uuid $$;
--> statement-breakpoint
alter table "companies" enable row level security;--> statement-breakpoint
alter table "companies" force row level security;--> statement-breakpoint
create policy "companies_tenant" on "companies" using (cradle_row_visible("id")) with check (cradle_row_visible("id"));
--> statement-breakpoint
alter table "advisories" enable row level security;--> statement-breakpoint
alter table "advisories" force row level security;--> statement-breakpoint
create policy "advisories_tenant" on "advisories" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "advisory_documents" enable row level security;--> statement-breakpoint
alter table "advisory_documents" force row level security;--> statement-breakpoint
create policy "advisory_documents_tenant" on "advisory_documents" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "api_keys" enable row level security;--> statement-breakpoint
alter table "api_keys" force row level security;--> statement-breakpoint
create policy "api_keys_tenant" on "api_keys" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "audit_log" enable row level security;--> statement-breakpoint
alter table "audit_log" force row level security;--> statement-breakpoint
create policy "audit_log_tenant" on "audit_log" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "attestations" enable row level security;--> statement-breakpoint
alter table "attestations" force row level security;--> statement-breakpoint
create policy "attestations_tenant" on "attestations" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "product_cra_facts" enable row level security;--> statement-breakpoint
alter table "product_cra_facts" force row level security;--> statement-breakpoint
create policy "product_cra_facts_tenant" on "product_cra_facts" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "sarif_scans" enable row level security;--> statement-breakpoint
alter table "sarif_scans" force row level security;--> statement-breakpoint
create policy "sarif_scans_tenant" on "sarif_scans" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "findings" enable row level security;--> statement-breakpoint
alter table "findings" force row level security;--> statement-breakpoint
create policy "findings_tenant" on "findings" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "outbox_events" enable row level security;--> statement-breakpoint
alter table "outbox_events" force row level security;--> statement-breakpoint
create policy "outbox_events_tenant" on "outbox_events" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "products" enable row level security;--> statement-breakpoint
alter table "products" force row level security;--> statement-breakpoint
create policy "products_tenant" on "products" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "reports" enable row level security;--> statement-breakpoint
alter table "reports" force row level security;--> statement-breakpoint
create policy "reports_tenant" on "reports" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "sboms" enable row level security;--> statement-breakpoint
alter table "sboms" force row level security;--> statement-breakpoint
create policy "sboms_tenant" on "sboms" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "sbom_documents" enable row level security;--> statement-breakpoint
alter table "sbom_documents" force row level security;--> statement-breakpoint
create policy "sbom_documents_tenant" on "sbom_documents" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "sbom_components" enable row level security;--> statement-breakpoint
alter table "sbom_components" force row level security;--> statement-breakpoint
create policy "sbom_components_tenant" on "sbom_components" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "sbom_dependencies" enable row level security;--> statement-breakpoint
alter table "sbom_dependencies" force row level security;--> statement-breakpoint
create policy "sbom_dependencies_tenant" on "sbom_dependencies" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "triage_jobs" enable row level security;--> statement-breakpoint
alter table "triage_jobs" force row level security;--> statement-breakpoint
create policy "triage_jobs_tenant" on "triage_jobs" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "report_events" enable row level security;--> statement-breakpoint
alter table "report_events" force row level security;--> statement-breakpoint
create policy "report_events_tenant" on "report_events" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "article14_filings" enable row level security;--> statement-breakpoint
alter table "article14_filings" force row level security;--> statement-breakpoint
create policy "article14_filings_tenant" on "article14_filings" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "users" enable row level security;--> statement-breakpoint
alter table "users" force row level security;--> statement-breakpoint
create policy "users_tenant" on "users" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "sessions" enable row level security;--> statement-breakpoint
alter table "sessions" force row level security;--> statement-breakpoint
create policy "sessions_tenant" on "sessions" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "webhooks" enable row level security;--> statement-breakpoint
alter table "webhooks" force row level security;--> statement-breakpoint
create policy "webhooks_tenant" on "webhooks" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "webhook_deliveries" enable row level security;--> statement-breakpoint
alter table "webhook_deliveries" force row level security;--> statement-breakpoint
create policy "webhook_deliveries_tenant" on "webhook_deliveries" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "webhook_attempts" enable row level security;--> statement-breakpoint
alter table "webhook_attempts" force row level security;--> statement-breakpoint
create policy "webhook_attempts_tenant" on "webhook_attempts" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "triage_suggestions" enable row level security;--> statement-breakpoint
alter table "triage_suggestions" force row level security;--> statement-breakpoint
create policy "triage_suggestions_tenant" on "triage_suggestions" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "report_messages" enable row level security;--> statement-breakpoint
alter table "report_messages" force row level security;--> statement-breakpoint
create policy "report_messages_tenant" on "report_messages" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
--> statement-breakpoint
alter table "article14_alerts" enable row level security;--> statement-breakpoint
alter table "article14_alerts" force row level security;--> statement-breakpoint
create policy "article14_alerts_tenant" on "article14_alerts" using (cradle_row_visible("company_id")) with check (cradle_row_visible("company_id"));
