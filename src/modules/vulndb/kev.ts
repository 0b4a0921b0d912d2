// The CISA Known Exploited Vulnerabilities catalog (JSON, schema in cisagov/kev-data): replaced
// whole on each import, as the catalog is published whole.
import { sql } from 'drizzle-orm';
import { vulndbKev } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { lockFor } from '../../db/advisory-lock.js';
import { param } from '../../kernel/evidence-store.js';
import { validation } from '../../kernel/errors.js';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const KevCatalog = z
  .object({
    catalogVersion: z.string(),
    vulnerabilities: z.array(
      z
        .object({
          cveID: z.string().regex(/^CVE-\d{4}-\d{4,}$/),
          vendorProject: z.string(),
          product: z.string(),
          vulnerabilityName: z.string(),
          dateAdded: Day,
          dueDate: Day.optional(),
          requiredAction: z.string(),
          knownRansomwareCampaignUse: z.string().optional(),
        })
        .loose(),
    ),
  })
  .loose();

export type KevImport = { catalogVersion: string; entries: number; added: string[]; removed: string[] };

/** Replaces the stored catalog with `bytes`; answers the CVEs that entered it with this import. */
export async function importKev(db: Db, bytes: Buffer): Promise<KevImport> {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw validation('the KEV catalog is not JSON');
  }
  const parsed = KevCatalog.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw validation(`not a KEV catalog: ${i?.path.join('.') ?? ''}: ${i?.message ?? 'invalid'}`);
  }
  const list = [...new Map(parsed.data.vulnerabilities.map((v) => [v.cveID, v])).values()];
  return db.transaction(async (tx) => {
    await lockFor(tx, 'vulndb', 'kev');
    const before = new Set((await selectRows<{ cve_id: string }>(tx, sql`select cve_id from vulndb_kev`)).map((r) => r.cve_id));
    const ids = list.map((v) => v.cveID);
    const removed = await selectRows<{ cve_id: string }>(tx, sql`delete from vulndb_kev where not (cve_id = any(${param(ids)}::text[])) returning cve_id`);
    const col = <T>(f: (v: (typeof list)[number]) => T): T[] => list.map(f);
    await tx.execute(sql`
      insert into ${vulndbKev} (${sqlColumns(vulndbKev, ['cveId', 'vendorProject', 'product', 'name', 'dateAdded', 'dueDate', 'requiredAction', 'knownRansomware'])})
      select * from unnest(${param(ids)}::text[], ${param(col((v) => v.vendorProject))}::text[], ${param(col((v) => v.product))}::text[],
        ${param(col((v) => v.vulnerabilityName))}::text[], ${param(col((v) => v.dateAdded))}::date[], ${param(col((v) => v.dueDate ?? null))}::date[],
        ${param(col((v) => v.requiredAction))}::text[], ${param(col((v) => v.knownRansomwareCampaignUse ?? 'Unknown'))}::text[])
      on conflict (cve_id) do update set vendor_project = excluded.vendor_project, product = excluded.product, name = excluded.name,
        date_added = excluded.date_added, due_date = excluded.due_date, required_action = excluded.required_action, known_ransomware = excluded.known_ransomware`);
    return {
      catalogVersion: parsed.data.catalogVersion,
      entries: list.length,
      added: ids.filter((id) => !before.has(id)),
      removed: removed.map((r) => r.cve_id),
    };
  });
}
