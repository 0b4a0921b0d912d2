import { sql, type SQL } from 'drizzle-orm';

/** Matches (alias `m`) whose ids name `vulnerability`: any of its ids, in any case. */
export const namesVulnerability = (vulnerability: string): SQL => sql`${vulnerability.toUpperCase()} = any(array(select upper(x) from unnest(m.vuln_ids) x))`;

/** A timestamp column as ISO 8601 (the drivers answer Date or text). */
export const iso = (v: string | Date): string => new Date(v).toISOString();

/** A date column as YYYY-MM-DD. */
export const day = (v: string | Date): string => (typeof v === 'string' ? v.slice(0, 10) : v.toISOString().slice(0, 10));
