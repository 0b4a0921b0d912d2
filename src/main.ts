// The server's entry point (`npm start`, `node dist/main.js`, the container): registers the resolve
// cache before anything else loads (ADR 0022), then starts the server (src/server.ts). A static
// import would be loaded before the hook exists.
import { registerResolveCache } from './kernel/module-resolution.js';

registerResolveCache();
await import('./server.js');
