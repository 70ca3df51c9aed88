// The UI's contract with the API, checked without a browser (`node tests/contract.mjs`, run by
// `./test.sh web`): every event type the committed OpenAPI document gives a table stream
// (`ViewEvent`, and Let's Call the Exorcist's `ExorcistViewEvent`) or a gathering stream (`GatheringEvent`) has a listener in the UI's stream
// client (lib.js `listenToStream`), since EventSource silently drops a named event nobody
// listens for. It reads the spec itself, not the generated list, so a type added to the spec
// fails here until the UI listens for it (regenerate with `npm run gen-api`).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const spec = JSON.parse(readFileSync(process.env.FLICKER_OPENAPI || join(root, '..', 'openapi', 'openapi.json'), 'utf8'));

/** @param {string} name */
function tagged(name) {
  const s = spec.components.schemas[name];
  assert.ok(s && Array.isArray(s.oneOf), `openapi.json has no oneOf schema ${name}`);
  return s.oneOf.map((/** @type {any} */ v) => v.properties.type.enum[0]);
}

// lib.js runs in a browser; give it the little of one it touches at load.
const store = new Map();
Object.assign(globalThis, {
  window: { addEventListener() {}, scrollTo() {}, setTimeout, clearTimeout },
  localStorage: { getItem: (/** @type {string} */ k) => store.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => store.set(k, v), removeItem: (/** @type {string} */ k) => store.delete(k) },
  location: { pathname: '/', search: '', href: 'http://127.0.0.1/' },
  history: { pushState() {} },
});
const { listenToStream } = await import('../public/src/lib.js');

/** @type {Map<string, (m: any) => void>} */
const listeners = new Map();
/** @type {string[]} */
const delivered = [];
listenToStream({ addEventListener: (/** @type {string} */ t, /** @type {any} */ f) => listeners.set(t, f) }, (t) => delivered.push(t));

let failures = 0;
for (const [schema, stream] of [['ViewEvent', 'table'], ['ExorcistViewEvent', 'table'], ['GatheringEvent', 'gathering']]) {
  const types = tagged(schema);
  const missing = types.filter((t) => !listeners.has(t));
  if (missing.length) {
    failures++;
    console.error(`the UI has no listener for ${missing.length} ${schema} type(s) of the ${stream} stream: ${missing.join(', ')} (run \`cd frontend && npm run gen-api\`)`);
  }
  // A listener delivers its message under its own name.
  for (const t of types.filter((x) => listeners.has(x))) listeners.get(t)?.({ data: '{}', lastEventId: '1' });
  assert.deepEqual(delivered.splice(0), types.filter((x) => listeners.has(x)), `${schema}: each listener delivers its own type`);
  if (!missing.length) console.log(`every ${schema} type (${types.length}) has a listener on the ${stream} stream`);
}
if (failures) process.exit(1);
