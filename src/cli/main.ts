#!/usr/bin/env node
// The `cradle` command's entry point: registers the resolve cache before anything else loads
// (ADR 0022), then runs the command (src/cli/run-cli.ts). A static import would be loaded before the hook exists.
import { registerResolveCache } from '../kernel/module-resolution.js';

registerResolveCache();
await import('./run-cli.js');
