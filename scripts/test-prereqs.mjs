#!/usr/bin/env node
// System tools the test suite uses as independent checkers. Installed from Debian's packages when
// missing and running as root; otherwise named with the command that installs them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const NEEDED = [
  // [command, Debian package, why]
  ['qpdf', 'qpdf', 'checks the structure of stored and downloaded PDFs, and encrypts test PDFs'],
  ['openssl', 'openssl', 'checks certificates, CMS signatures, OCSP answers and time stamps'],
  ['certutil', 'libnss3-tools', 'builds the NSS trust store pdfsig validates signatures against'],
  ['pdftotext', 'poppler-utils', 'reads the text and page sizes of generated PDFs independently of the service'],
  ['chromium', 'chromium', 'renders html templates (the service drives it through playwright-core)'],
  ['soffice', 'libreoffice-writer-nogui', 'converts docx templates to PDF'],
  ['faketime', 'faketime', "moves pdfsig's clock to check signatures as a validator would years later"],
  ['docker-compose', 'docker-compose', 'reads the compose files as Compose would (docker-compose config, no daemon needed)'],
  // A font file rather than a command: without fonts, rendered templates have no readable text.
  ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 'fonts-dejavu-core', 'fonts for rendered templates'],
];

const has = (cmd) =>
  cmd.startsWith('/') ? existsSync(cmd) : spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const missing = NEEDED.filter(([cmd]) => !has(cmd));
if (missing.length === 0) {
  process.exit(0);
}
const packages = [...new Set(missing.map(([, pkg]) => pkg))];
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = has('apt-get');
if (!isRoot || !hasApt) {
  console.error('The tests need these system packages, which are missing:');
  for (const [cmd, pkg, why] of missing) {
    console.error(`  ${pkg} (for ${cmd}: ${why})`);
  }
  console.error(`Install them with: sudo apt-get install -y ${packages.join(' ')}`);
  process.exit(1);
}
console.log(`Installing test prerequisites: ${packages.join(' ')}`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
const still = missing.filter(([cmd]) => !has(cmd));
if (still.length > 0) {
  console.error(`still missing after install: ${still.map(([c]) => c).join(', ')}`);
  process.exit(1);
}
