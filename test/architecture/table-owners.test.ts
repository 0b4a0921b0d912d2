import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../src/db/schema/index.js';

/**
 * One owner per table (issue 23): only the owning module of `src/modules/` writes a table or
 * imports it; every other access is one of docs/architecture.md's "Cross-module table access"
 * entries, each with its reason, and every entry is still needed. `db` owns the tables its
 * triggers keep (data versions), which no module touches.
 */
export const TABLE_OWNERS: Record<string, readonly string[]> = {
  companies: ['companies', 'company_deletions'],
  users: ['users', 'recovery_codes'],
  sessions: ['sessions', 'pending_sign_ins', 'sign_in_failures'],
  team: ['invitations'],
  keys: ['api_keys'],
  audit: ['audit_log'],
  instance: ['setup_tokens'],
  products: ['products'],
  reports: ['reports', 'report_events', 'report_notes', 'response_alerts'],
  triage: ['triage_jobs', 'triage_suggestions'],
  article14: ['article14_filings', 'article14_alerts', 'saved_filters'],
  messages: ['report_messages'],
  cases: ['cases', 'case_reports', 'case_participants', 'case_notices', 'case_messages', 'case_events', 'case_fixes', 'case_attachments'],
  webhooks: ['webhooks', 'webhook_deliveries', 'webhook_attempts', 'outbox_events'],
  mail: ['mail_messages', 'mail_preferences'],
  retention: ['retention_policies', 'legal_holds', 'erasure_requests'],
  sboms: ['sboms', 'sbom_documents', 'sbom_components', 'sbom_dependencies', 'sbom_diffs', 'sbom_stages'],
  findings: ['sarif_scans', 'findings', 'finding_transitions', 'sarif_stages'],
  compliance: ['attestations', 'product_cra_facts'],
  advisories: ['advisories', 'advisory_documents'],
  vulndb: ['vulndb_records', 'vulndb_affected', 'vulndb_kev', 'vulndb_epss', 'vulndb_sources'],
  'known-vulns': ['vuln_matches', 'sbom_match_runs', 'sbom_match_jobs', 'vuln_decisions', 'kev_awareness'],
  upstream: ['upstream_settings'],
  db: ['key_state_version', 'company_data_versions', 'company_data_pending'],
};

const ROOT = normalize(join(import.meta.dirname, '..', '..'));
const MODULES = join(ROOT, 'src', 'modules');

/** Every table of the schema: its name in code and in SQL. */
const TABLES = new Map<string, string>(Object.entries(schema).flatMap(([name, v]) => (is(v, PgTable) ? [[name, getTableName(v)] as [string, string]] : [])));
const SQL_NAMES = new Set(TABLES.values());
const OWNER = new Map(Object.entries(TABLE_OWNERS).flatMap(([m, ts]) => ts.map((t) => [t, m] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

type Access = 'reads' | 'writes';

/**
 * What one file does with tables (SQL names): the tables it imports from `db/schema` (a namespace
 * import counts what it names), and those it writes with drizzle (`.insert(t)`, `.update(t)`,
 * `.delete(t)`) or in SQL text (`insert into t`, `update t ... set`, `delete from t`).
 */
export function tableAccess(text: string): Map<string, Access> {
  const out = new Map<string, Access>();
  const imported = new Map<string, string>();
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'[./]+\/db\/schema\/[^']*'/g)) {
    for (const part of (m[1] ?? '').split(',')) {
      const [name, alias] = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      const table = TABLES.get(name ?? '');
      if (table) imported.set(alias ?? name ?? '', table);
    }
  }
  for (const m of text.matchAll(/import\s+\*\s+as\s+(\w+)\s+from\s+'[./]+\/db\/schema\/[^']*'/g)) {
    for (const use of text.matchAll(new RegExp(`\\b${m[1]}\\.(\\w+)`, 'g'))) {
      const table = TABLES.get(use[1] ?? '');
      if (table) imported.set(`${m[1]}.${use[1]}`, table);
    }
  }
  for (const table of imported.values()) out.set(table, 'reads');
  for (const m of text.matchAll(/\.(?:insert|update|delete)\(\s*([\w.]+)\s*\)/g)) {
    const table = imported.get(m[1] ?? '');
    if (table) out.set(table, 'writes');
  }
  for (const m of text.matchAll(/\b(?:insert\s+into|delete\s+from)\s+"?(\w+)"?|\bupdate\s+"?(\w+)"?(?:\s+(?:as\s+)?\w+)?\s+set\b/gi)) {
    const table = (m[1] ?? m[2] ?? '').toLowerCase();
    if (SQL_NAMES.has(table)) out.set(table, 'writes');
  }
  return out;
}

type Entry = { module: string; access: Access; tables: string[]; line: string };

/** docs/architecture.md's list: "- `module` reads|writes `table`, `table`: reason" (`*` for any). */
function allowedAccess(): Entry[] {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split('### Cross-module table access')[1]?.split(/\n#{2,3} /)[0];
  assert.ok(section, 'docs/architecture.md has a "Cross-module table access" section');
  return [...section.matchAll(/^- `([\w*-]+)` (reads|writes) ((?:`[\w*]+`(?:, | and )?)+):\s+\S.*$/gm)].map((m) => ({
    module: m[1] ?? '',
    access: m[2] as Access,
    tables: [...(m[3] ?? '').matchAll(/`([\w*]+)`/g)].map((t) => t[1] ?? ''),
    line: m[0],
  }));
}

const covers = (e: Entry, module: string, table: string, access: Access) =>
  (e.module === module || e.module === '*') && (e.tables.includes(table) || e.tables.includes('*')) && (e.access === 'writes' || access === 'reads');

describe('one owner per table', () => {
  it('names exactly one owner, a module (or db), for every table of the schema', () => {
    const modules = new Set(
      readdirSync(MODULES, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name),
    );
    assert.deepEqual([...SQL_NAMES].filter((t) => !OWNER.has(t)).sort(), [], 'tables without an owner');
    assert.deepEqual([...OWNER.keys()].filter((t) => !SQL_NAMES.has(t)).sort(), [], 'owned tables that do not exist');
    assert.deepEqual(
      Object.keys(TABLE_OWNERS).filter((m) => m !== 'db' && !modules.has(m)),
      [],
      'owners that are not modules',
    );
    const named = Object.values(TABLE_OWNERS).flat();
    assert.equal(new Set(named).size, named.length, 'a table with two owners');
  });

  it("lets a module touch another module's table only as docs/architecture.md lists, and lists nothing unused", () => {
    const entries = allowedAccess();
    const used = new Set<Entry>();
    const refused: string[] = [];
    for (const file of sourceFiles(MODULES)) {
      const module = relative(MODULES, file).split(sep)[0] ?? '';
      for (const [table, access] of tableAccess(readFileSync(file, 'utf8'))) {
        if (OWNER.get(table) === module) continue;
        const entry = entries.find((e) => covers(e, module, table, access));
        if (entry) used.add(entry);
        else refused.push(`${relative(ROOT, file)} ${access} ${table} (owned by ${OWNER.get(table)})`);
      }
    }
    assert.deepEqual(refused, [], 'cross-module access not listed in docs/architecture.md');
    assert.deepEqual(
      entries.filter((e) => !used.has(e)).map((e) => e.line),
      [],
      'listed access no module has any more',
    );
  });

  it('sees writes in drizzle calls and in SQL text, and reads in imports', () => {
    const text = [
      "import { reports, products as p } from '../../db/schema/index.js';",
      'await tx.update(reports).set({ updatedAt: now });',
      'await db.execute(sql`insert into audit_log (id) values (1)`);',
      'await db.execute(sql`update triage_jobs j set state = 1`);',
      'const rows = await db.select().from(p);',
    ].join('\n');
    assert.deepEqual(Object.fromEntries(tableAccess(text)), { reports: 'writes', products: 'reads', audit_log: 'writes', triage_jobs: 'writes' });
  });
});
