import { type SQL, sql } from 'drizzle-orm';

/**
 * Whether the report `r` (an alias of `reports`) is under a standing legal hold: on itself, on the
 * product it names (by name or identifier, as the portal form records it), or on the whole company.
 */
export const isHeld = (r: string): SQL => {
  const a = sql.identifier(r);
  return sql`exists (select 1 from legal_holds h where h.company_id = ${a}.company_id and h.released_at is null and (
    h.scope = 'company'
    or (h.scope = 'report' and h.target_id = ${a}.id)
    or (h.scope = 'product' and exists (select 1 from products p where p.id = h.target_id and p.company_id = ${a}.company_id
      and lower(${a}.product_name) in (lower(p.name), lower(p.identifier))))))`;
};

/**
 * Whether the report `r` is CRA technical documentation (docs/retention.md "The CRA floor"): it has
 * an advisory, an Article 14 filing, or Article 14 facts (awareness, active exploitation, a severe
 * incident). Its text is never removed by a retention rule; only the researcher's personal data
 * may be pseudonymised, which leaves every technical fact in place.
 */
export const isTechnicalDocumentation = (r: string): SQL => {
  const a = sql.identifier(r);
  return sql`(${a}.aware_at is not null or ${a}.actively_exploited is true or ${a}.severe_incident is true
    or exists (select 1 from advisories ad where ad.company_id = ${a}.company_id and ad.report_id = ${a}.id)
    or exists (select 1 from article14_filings f where f.company_id = ${a}.company_id and f.report_id = ${a}.id))`;
};
