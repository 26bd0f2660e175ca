#!/usr/bin/env node
// Entry point of the `sello` command. The sources are TypeScript run through tsx's loader, so a
// checkout works without a build step; installed packages load as plain Node loads them
// (packages-hook.js says why).
import { register as registerHook } from 'node:module';
import { register } from 'tsx/esm/api';

register();
registerHook('./packages-hook.js', import.meta.url);
await import('../src/main.ts');
