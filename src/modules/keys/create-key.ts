import type { Db } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from '../companies/get-company.js';
import type { Executor } from '../../db/client.js';
import { newKeyValue } from './issue-key.js';
import { CreateKeyInput, type IssuedKey, toIssuedKey } from './keys.schemas.js';
import { authorize } from '../../kernel/access.js';

const DAY_MS = 86_400_000;

/** Only a company on the Enterprise plan gets keys (docs/access.md "API keys"). */
export async function assertEnterprise(db: Executor, companyId: string): Promise<void> {
  const company = await getCompanyById(db, companyId);
  if (authorize({ plan: company.plan }, {})) {
    throw new AppError(ErrorCode.FORBIDDEN, 'API keys require the Enterprise plan');
  }
}

/**
 * Creates an API key for the company of a signed-in administrator. The caller (a session-only
 * transport) guarantees the actor is an administrator of `companyId`; an API key never gets here.
 * The value is returned once and never stored.
 */
export async function createKey(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<IssuedKey> {
  if (ctx.actor.type !== 'user') throw new AppError(ErrorCode.UNAUTHENTICATED, 'API keys are managed from a signed-in session only');
  const input = parseInput(CreateKeyInput, raw);
  const secret = newKeyValue();
  return db.transaction(async (tx) => {
    await assertEnterprise(tx, companyId);
    const now = new Date();
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: newId(),
        companyId,
        name: input.name,
        keyDigest: secret.digest,
        keyHint: secret.hint,
        scopes: input.scopes,
        allowedIps: input.allowedIps,
        expiresAt: new Date(now.getTime() + input.expiresInDays * DAY_MS),
        createdAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'keys.create',
      targetType: 'api_key',
      targetId: row.id,
      details: { name: row.name, scopes: row.scopes, allowedIps: row.allowedIps, expiresAt: row.expiresAt.toISOString() },
      at: now,
    });
    return toIssuedKey(row, secret.value);
  });
}
