// Preloaded with `node --import` to stand for an install without tsx (the container image's):
// resolving any module of the tsx package throws. A preload runs again in every worker thread
// (workers inherit the process's execArgv), so it reaches the jail's workers as well.
import { register } from 'node:module';

const hook = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/node_modules/tsx/')) {
    throw new Error('tsx is not installed here (refused: ' + specifier + ')');
  }
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
