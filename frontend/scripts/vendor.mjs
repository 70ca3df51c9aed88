// Copies the pinned UI libraries from node_modules (installed from package-lock.json) into
// public/vendor/, with their licences. `node scripts/vendor.mjs --check` fails when a vendored
// file differs from its package's copy (the browser tests run the check).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** [source in node_modules, file in public/vendor] */
const files = [
  ['preact/dist/preact.module.js', 'preact.module.js'],
  ['preact/dist/preact.module.js.map', 'preact.module.js.map'],
  ['preact/hooks/dist/hooks.module.js', 'hooks.module.js'],
  ['preact/hooks/dist/hooks.module.js.map', 'hooks.module.js.map'],
  ['preact/LICENSE', 'LICENSE.preact.txt'],
  ['htm/dist/htm.module.js', 'htm.module.js'],
  ['htm/LICENSE', 'LICENSE.htm.txt'],
];
const check = process.argv.includes('--check');
let stale = 0;
mkdirSync(join(root, 'public/vendor'), { recursive: true });
for (const [from, to] of files) {
  const src = readFileSync(join(root, 'node_modules', from));
  const dest = join(root, 'public/vendor', to);
  if (check) {
    let cur = null;
    try { cur = readFileSync(dest); } catch { /* missing */ }
    if (!cur || !cur.equals(src)) { console.error(`stale vendored file: public/vendor/${to} (run npm run vendor)`); stale++; }
  } else {
    writeFileSync(dest, src);
  }
}
const versions = ['preact', 'htm'].map((p) => `${p} ${JSON.parse(readFileSync(join(root, 'node_modules', p, 'package.json'), 'utf8')).version}`);
if (check) {
  if (stale) process.exit(1);
  console.log(`vendored libraries match their packages (${versions.join(', ')})`);
} else {
  writeFileSync(join(root, 'public/vendor/VERSIONS.txt'), versions.join('\n') + '\n');
  console.log(`vendored ${versions.join(', ')}`);
}
