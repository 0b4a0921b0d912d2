// Loaded with `--import` into a child process: writes, when the process exits, the URL of every
// module it resolved to the file CRADLE_MODULE_TRACE names (test/http/tracing-off.test.ts).
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => writeFileSync(process.env.CRADLE_MODULE_TRACE, [...seen].join('\n')));
