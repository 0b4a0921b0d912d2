import { hasSecretKeys, makeSecretKeyring, useSecretKeys } from '../../src/kernel/secret-box.js';

/**
 * The operator key of tests and benchmarks (fixed, so a server process started by a test opens what
 * the test sealed in-process). Installed on import when none is: every helper that opens a database
 * or starts a server imports this module.
 */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 0x5a).toString('base64');

if (!hasSecretKeys()) useSecretKeys(makeSecretKeyring([Buffer.from(TEST_SECRETS_KEY, 'base64')]));
