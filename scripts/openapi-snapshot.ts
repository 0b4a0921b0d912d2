// `npm run openapi:snapshot`: writes docs/openapi.json from the operation list, for the default
// PUBLIC_URL. Commit it with every API change; test/http/openapi.test.ts fails when it drifts.
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { buildOpenApi } from '../src/http/openapi.js';

writeFileSync('docs/openapi.json', `${JSON.stringify(buildOpenApi(loadConfig({})), null, 2)}\n`);
console.log('wrote docs/openapi.json');
