// Summarizes a V8 .cpuprofile (from BENCH_CPU_PROF=DIR npm run bench) without a browser: where the
// server's main thread spent its time, by package or source file (self time) and by function
// (inclusive time, each sample counted once per function on its stack).
//
//   node bin/run-ts.js bench/profile-summary.ts DIR/CPU.*.cpuprofile [top=25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: [PROFILE_LAST_SECONDS=N] [PROFILE_SKIP_LAST_SECONDS=M] profile-summary.ts FILE.cpuprofile [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) {
  for (const c of n.children ?? []) {
    parent.set(c, n.id);
  }
}

/** Where a frame comes from: a file of this repository, a package, Node itself, or V8. */
function place(n: ProfileNode): string {
  const url = n.callFrame.url;
  if (!url) {
    return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    return pkg[1];
  }
  if (url.startsWith('node:')) {
    return `node:${url.slice(5).split('/')[0]}${url.includes('internal') ? ' (internals)' : ''}`;
  }
  const src = /\/((?:src|bench)\/.*)$/.exec(url);
  return src ? src[1] : url;
}

const frameName = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'}  ${place(n)}:${n.callFrame.lineNumber + 1}`;

const selfByPlace = new Map<string, number>();
// Native frames (syscalls, crypto, V8 builtins) are named after their JavaScript caller.
const selfByFrame = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let idle = 0;
// PROFILE_LAST_SECONDS=N keeps only the last N seconds of samples: the measured run, without the
// start-up (module loading, migrations) that a server's profile also holds.
// PROFILE_SKIP_LAST_SECONDS=M leaves out the M seconds before the end (a scenario run after it).
const last = Number(process.env.PROFILE_LAST_SECONDS ?? 0) * 1e6;
const skipLast = Number(process.env.PROFILE_SKIP_LAST_SECONDS ?? 0) * 1e6;
const end = profile.timeDeltas.reduce((a, b) => a + b, 0) - skipLast;
const keepFrom = last > 0 ? end - last : 0;
let clock = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  clock += dt;
  if (clock < keepFrom || clock > end) {
    return;
  }
  const node = byId.get(id)!;
  total += dt;
  if (node.callFrame.functionName === '(idle)') {
    idle += dt;
    return;
  }
  const p = place(node);
  selfByPlace.set(p, (selfByPlace.get(p) ?? 0) + dt);
  const caller = parent.get(id);
  const self = p === '(native)' && caller !== undefined ? `${frameName(node)}  ← ${frameName(byId.get(caller)!)}` : frameName(node);
  selfByFrame.set(self, (selfByFrame.get(self) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const name = frameName(byId.get(cur)!);
    if (!seen.has(name)) {
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  }
});

const busy = total - idle;
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
console.log(
  `${file}\nsampled ${ms(total).trim()} ms, idle ${ms(idle).trim()} ms, busy ${ms(busy).trim()} ms (percentages are of busy time)\n`,
);
console.log('self time by package / file');
for (const [p, us] of [...selfByPlace].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${ms(us)} ms ${pct(us)}  ${p}`);
}
console.log('\nself time by function');
for (const [f, us] of [...selfByFrame].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${ms(us)} ms ${pct(us)}  ${f}`);
}
console.log('\ninclusive time by function (the root and event-loop frames are near 100%)');
for (const [f, us] of [...inclusive]
  .filter(([f]) => !f.startsWith('(root)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top * 2)) {
  console.log(`${ms(us)} ms ${pct(us)}  ${f}`);
}
