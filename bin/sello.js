#!/usr/bin/env node
// Entry point of the `sello` command. The sources are TypeScript run through tsx's loader, so a
// checkout works without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
