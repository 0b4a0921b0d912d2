// `npm run lint:openapi` (part of `npm run lint`): lints the OpenAPI document the operation list
// generates, the one /openapi.json serves (default PUBLIC_URL, as the committed snapshot), with
// Redocly's recommended rules, warnings counted as errors (redocly.yaml). Offline: the document has
// no remote references, and telemetry and the update check are off.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { buildOpenApi } from '../src/http/openapi.js';

const dir = mkdtempSync(join(tmpdir(), 'cradle-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, `${JSON.stringify(buildOpenApi(loadConfig({})), null, 2)}\n`);
  const result = spawnSync(join('node_modules', '.bin', 'redocly'), ['lint', file, '--config', 'redocly.yaml', '--format', 'stylish'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
