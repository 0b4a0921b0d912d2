import { and, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { products, savedFilters, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { AppError, conflict, ErrorCode, notFound, validation } from '../../kernel/errors.js';
import { isUuid, newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import type { InboxCriteria } from './inbox-criteria.js';
import { SAVED_FILTERS_MAX, type SavedFilter, SaveFilterInput, UpdateSavedFilterInput } from './saved-filters.schemas.js';

/**
 * Whose saved filters a caller sees (docs/workflow.md "Saved filters"): a member's own; an API key
 * sees the one set the company's keys share. A key is issued to a system rather than a person, and
 * a key replaced at expiry must not take the integration's views with it; it cannot say `me`.
 */
type Owner = { userId: string } | { userId: null };
function ownerOf(ctx: Context): Owner {
  if (ctx.actor.type === 'user') return { userId: ctx.actor.id };
  if (ctx.actor.type === 'api_key') return { userId: null };
  throw new AppError(ErrorCode.FORBIDDEN, 'saved filters belong to a member or to the API keys');
}
const owned = (companyId: string, o: Owner): SQL =>
  and(eq(savedFilters.companyId, companyId), o.userId === null ? isNull(savedFilters.userId) : eq(savedFilters.userId, o.userId)) as SQL;

/** The member the signed-in caller is, for `assignee=me`; an API key is none. */
export const viewerOf = (ctx: Context): string | undefined => (ctx.actor.type === 'user' ? ctx.actor.id : undefined);

/** `me` means the signed-in member: refused for a key (before anything is saved or listed). */
export function assertMeFits(ctx: Context, c: InboxCriteria, path: string): void {
  if (c.assignee === 'me' && !viewerOf(ctx)) {
    const message = 'me is the signed-in member; an API key acts for no member: give the member id';
    throw validation(`${path}: ${message}`, [{ path, message }]);
  }
}

/**
 * What each criteria set names that the company no longer has, in words (the filter still
 * applies): two queries for any number of sets, so a list of saved filters costs no more than one.
 */
async function missingOfEach(db: Executor, companyId: string, list: readonly InboxCriteria[]): Promise<string[][]> {
  const names = [...new Set(list.flatMap((c) => (c.product === undefined ? [] : [c.product])))];
  const ids = [...new Set(list.flatMap((c) => (c.assignee !== undefined && isUuid(c.assignee) ? [c.assignee] : [])))];
  const [known, members] = await Promise.all([
    names.length
      ? db
          .select({ name: products.name })
          .from(products)
          .where(and(eq(products.companyId, companyId), inArray(products.name, names)))
      : [],
    ids.length
      ? db
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.companyId, companyId), inArray(users.id, ids)))
      : [],
  ]);
  const productNames = new Set(known.map((p) => p.name));
  const memberIds = new Set(members.map((m) => m.id));
  return list.map((c) => [
    ...(c.product !== undefined && !productNames.has(c.product) ? [`the product "${c.product}" no longer exists`] : []),
    ...(c.assignee !== undefined && isUuid(c.assignee) && !memberIds.has(c.assignee) ? ['the member it names as assignee is no longer in the team'] : []),
  ]);
}

/** What the criteria name that the company no longer has, in words: the filter still applies. */
export async function missingOf(db: Executor, companyId: string, c: InboxCriteria): Promise<string[]> {
  return (await missingOfEach(db, companyId, [c]))[0] ?? [];
}

type Row = typeof savedFilters.$inferSelect;
const views = async (db: Executor, rows: Row[]): Promise<SavedFilter[]> => {
  const missing = rows.length
    ? await missingOfEach(
        db,
        rows[0]!.companyId,
        rows.map((r) => r.criteria as InboxCriteria),
      )
    : [];
  return rows.map((r, i) => ({
    id: r.id,
    name: r.name,
    criteria: r.criteria as InboxCriteria,
    missing: missing[i] ?? [],
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
};
const view = async (db: Executor, r: Row): Promise<SavedFilter> => (await views(db, [r]))[0]!;
const taken = (name: string) => conflict(`a saved filter named "${name}" exists already`);

/** The caller's saved filters, by name. */
export async function listSavedFilters(db: Executor, ctx: Context, companyId: string): Promise<SavedFilter[]> {
  const rows = await db
    .select()
    .from(savedFilters)
    .where(owned(companyId, ownerOf(ctx)))
    .orderBy(sql`lower(${savedFilters.name})`);
  return views(db, rows);
}

/** One of the caller's saved filters; another member's, another key's or another company's is not found. */
export async function getSavedFilter(db: Executor, ctx: Context, companyId: string, id: string): Promise<SavedFilter> {
  if (!isUuid(id)) throw notFound('saved filter');
  const [row] = await db
    .select()
    .from(savedFilters)
    .where(and(owned(companyId, ownerOf(ctx)), eq(savedFilters.id, id)));
  if (!row) throw notFound('saved filter');
  return view(db, row);
}

async function assertCriteria(db: Executor, ctx: Context, companyId: string, c: InboxCriteria): Promise<void> {
  assertMeFits(ctx, c, 'criteria.assignee');
  // A member id must be one of the company's when saved (another company's reads the same); one
  // removed later is reported as missing.
  if (c.assignee !== undefined && isUuid(c.assignee) && (await missingOf(db, companyId, { assignee: c.assignee })).length > 0) {
    const message = 'not a member of your company';
    throw validation(`criteria.assignee: ${message}`, [{ path: 'criteria.assignee', message }]);
  }
}

/** The criteria as one comparable string, whatever the order of their keys. */
const sameCriteria = (a: InboxCriteria, b: InboxCriteria): boolean => {
  const norm = (c: InboxCriteria) => JSON.stringify(Object.entries(c).sort(([x], [y]) => x.localeCompare(y)));
  return norm(a) === norm(b);
};

/** Saves the criteria under a name for the caller, with its audit row; at most `SAVED_FILTERS_MAX` each. */
export async function saveFilter(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<SavedFilter> {
  const input = parseInput(SaveFilterInput, raw);
  const owner = ownerOf(ctx);
  await assertCriteria(db, ctx, companyId, input.criteria);
  // Saving the same name and criteria again (a second click, a retried request) answers the filter saved.
  const same = (await listSavedFilters(db, ctx, companyId)).find((f) => f.name === input.name && sameCriteria(f.criteria, input.criteria));
  if (same) return same;
  const now = new Date();
  try {
    const row = await db.transaction(async (tx) => {
      // One owner's saves are serialised, so two at once cannot both pass the count.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`saved_filters:${companyId}:${owner.userId ?? 'keys'}`}))`);
      const [count] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(savedFilters)
        .where(owned(companyId, owner));
      if (Number(count?.n ?? 0) >= SAVED_FILTERS_MAX)
        throw conflict(`${SAVED_FILTERS_MAX} saved filters are the most one may keep; delete one to save another`);
      const [r] = await tx
        .insert(savedFilters)
        .values({ id: newId(), companyId, ...owner, name: input.name, criteria: input.criteria as Record<string, string>, createdAt: now, updatedAt: now })
        .returning();
      await recordAudit(tx, ctx, { companyId, action: 'inbox.filters.save', targetType: 'saved_filter', targetId: r!.id, at: now });
      return r!;
    });
    return view(db, row);
  } catch (e) {
    if (isUniqueViolation(e)) throw taken(input.name);
    throw e;
  }
}

/** Renames a saved filter of the caller, or replaces its criteria. */
export async function updateSavedFilter(db: Db, ctx: Context, companyId: string, id: string, raw: unknown): Promise<SavedFilter> {
  const input = parseInput(UpdateSavedFilterInput, raw);
  const before = await getSavedFilter(db, ctx, companyId, id);
  if (input.criteria) await assertCriteria(db, ctx, companyId, input.criteria);
  const now = new Date();
  try {
    const row = await db.transaction(async (tx) => {
      const [r] = await tx
        .update(savedFilters)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.criteria ? { criteria: input.criteria as Record<string, string> } : {}),
          updatedAt: now,
        })
        .where(and(owned(companyId, ownerOf(ctx)), eq(savedFilters.id, before.id)))
        .returning();
      if (!r) throw notFound('saved filter');
      const changed = [...(input.name !== undefined ? ['name'] : []), ...(input.criteria ? ['criteria'] : [])];
      await recordAudit(tx, ctx, { companyId, action: 'inbox.filters.update', targetType: 'saved_filter', targetId: r.id, details: { changed }, at: now });
      return r;
    });
    return view(db, row);
  } catch (e) {
    if (isUniqueViolation(e)) throw taken(input.name ?? before.name);
    throw e;
  }
}

/** Deletes a saved filter of the caller. */
export async function deleteSavedFilter(db: Db, ctx: Context, companyId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('saved filter');
  const owner = ownerOf(ctx);
  await db.transaction(async (tx) => {
    const gone = await tx
      .delete(savedFilters)
      .where(and(owned(companyId, owner), eq(savedFilters.id, id)))
      .returning({ id: savedFilters.id });
    if (gone.length === 0) throw notFound('saved filter');
    await recordAudit(tx, ctx, { companyId, action: 'inbox.filters.delete', targetType: 'saved_filter', targetId: id });
  });
}
