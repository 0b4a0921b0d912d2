// Loaded with `--import` into a child process: writes, when the process exits, the URL of every
// module it loaded to the file CRADLE_MODULE_TRACE names (test/http/tracing-off.test.ts). A load
// hook, not a resolve hook: the entry point's resolve cache (ADR 0022) answers most resolutions
// without asking the hooks registered before it, but every module is still loaded through them.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const seen = new Set();
registerHooks({
  load(url, context, next) {
    seen.add(url);
    return next(url, context);
  },
});
process.on('exit', () => writeFileSync(process.env.CRADLE_MODULE_TRACE, [...seen].join('\n')));
