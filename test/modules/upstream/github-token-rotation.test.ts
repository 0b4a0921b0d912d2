import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { upstreamSettings } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { makeSecretKeyring, useSecretKeys } from '../../../src/kernel/secret-box.js';
import { openGithubToken, rewrapGithubTokens, setGithubToken } from '../../../src/modules/upstream/upstream-settings.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { TEST_SECRETS_KEY } from '../../helpers/secret-keys.js';

let d: TestDatabase;
const oldKey = Buffer.from(TEST_SECRETS_KEY, 'base64');
const newKey = randomBytes(32);
before(async () => {
  d = await createTestDatabase();
});
after(async () => {
  useSecretKeys(makeSecretKeyring([oldKey]));
  await d.drop();
});

describe('GitHub tokens across an operator key rotation', () => {
  it('are re-wrapped under the new key at start-up, so the old key can be dropped', async () => {
    const c = await makeCompany(d.db);
    const token = 'ghp_rotationTestToken0123456789abcdef';
    await setGithubToken(d.db, operatorContext(), { companyId: c.id, input: { githubToken: token }, githubApiUrl: 'https://api.github.com' });
    const before = (await d.db.select().from(upstreamSettings).where(eq(upstreamSettings.companyId, c.id)))[0]?.githubToken ?? '';
    useSecretKeys(makeSecretKeyring([newKey, oldKey]));
    assert.deepEqual(await rewrapGithubTokens(d.db), { rewrapped: 1, failed: [] });
    assert.deepEqual(await rewrapGithubTokens(d.db), { rewrapped: 0, failed: [] }, 'a second run finds nothing');
    const after = (await d.db.select().from(upstreamSettings).where(eq(upstreamSettings.companyId, c.id)))[0]?.githubToken ?? '';
    assert.notEqual(after.split('.')[1], before.split('.')[1], 'sealed under another key id');
    useSecretKeys(makeSecretKeyring([newKey]));
    assert.equal(await openGithubToken(d.db, c.id), token);
  });
});
