// The organiser console's and gathering page's words, without a browser (`node
// tests/console.mjs`, run by `./test.sh web`): the progress line leaves the Final Ritual out of
// the circles it counts, standings are ranked (final ranks, then the players still in by how far
// they got), and a Witnessed circle says it sends nobody on (R7.8.4, R9.5.3). A gathering of Let's
// Call the Exorcist names its last stage the Final table, and its standings take each player's
// points from the bracket's circles (X7.6).
import assert from 'node:assert/strict';

const store = new Map();
Object.assign(globalThis, {
  window: { addEventListener() {}, scrollTo() {}, setTimeout, clearTimeout },
  localStorage: { getItem: (/** @type {string} */ k) => store.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => store.set(k, v), removeItem: (/** @type {string} */ k) => store.delete(k) },
  location: { pathname: '/', search: '', hash: '', href: 'http://127.0.0.1/' },
  history: { pushState() {} },
});
const { progressText, rankStandings, circleNote } = await import('../public/src/pages.js');

/** @param {Partial<any>} g */
const summary = (g) => /** @type {any} */ ({ status: 'running', players: [], end_reason: null, progress: { stage: 1, circles_ended: 2, circles_expected: 5 }, ...g });
// 20 players in circles of 8 or fewer: 4 qualifying circles (say), then the Final Ritual.
assert.equal(progressText(summary({})), 'stage 1: 2/4 qualifying circles ended · then the Final Ritual');
assert.equal(progressText(summary({ progress: { stage: 2, circles_ended: 4, circles_expected: 5 } })), '4/4 qualifying circles ended · the Final Ritual is being played');
assert.equal(progressText(summary({ status: 'finished', end_reason: 'final_ritual', progress: { stage: 2, circles_ended: 5, circles_expected: 5 } })), '4/4 qualifying circles ended · the Final Ritual has ended');
// One table for everybody: the only circle is the Final Ritual.
assert.equal(progressText(summary({ progress: { stage: 1, circles_ended: 0, circles_expected: 1 } })), 'stage 1: the Final Ritual is being played');
assert.equal(progressText(summary({ status: 'registering', registered: 2, players: [{ name: 'a' }, { name: 'b' }] })), '2 registered');
// Let's Call the Exorcist: the same count, its own last stage (rules decision 74).
const exorcist = { settings: { game: 'lets-call-the-exorcist' } };
assert.equal(progressText(summary({ ...exorcist, progress: { stage: 1, circles_ended: 1, circles_expected: 4 } })), 'stage 1: 1/3 qualifying circles ended · then the Final table');
assert.equal(progressText(summary({ ...exorcist, status: 'finished', end_reason: 'final_ritual', progress: { stage: 2, circles_ended: 4, circles_expected: 4 } })), '3/3 qualifying circles ended · the Final table has ended');

const row = (/** @type {string} */ name, /** @type {any} */ o) => ({ name, stage: 1, circle: 1, placing: null, rank: null, status: 'playing', ...o });
const ranked = rankStandings([
  row('out-early', { status: 'out', placing: 4, rank: 7 }),
  row('playing-b', {}),
  row('through', { status: 'advanced', stage: 1 }),
  row('finalist', { stage: 2, circle: 1 }),
  row('playing-a', {}),
  row('out-late', { status: 'out', placing: 3, rank: 5 }),
]);
assert.deepEqual(ranked.map((r) => r.row.name), ['finalist', 'through', 'playing-a', 'playing-b', 'out-late', 'out-early']);
assert.deepEqual(ranked.map((r) => r.position), ['1', '2', '=3', '=3', '5', '7']);
const done = rankStandings([row('second', { status: 'out', rank: 2, stage: 2 }), row('champ', { status: 'winner', rank: 1, stage: 2 })]);
assert.deepEqual(done.map((r) => `${r.position} ${r.row.name}`), ['1 champ', '2 second']);

const circle = (/** @type {any} */ o) => /** @type {any} */ ({ circle: 1, table_id: 't', status: 'finished', players: [], last_lit: [], winner: null, end_reason: null, ...o });
assert.match(circleNote(circle({ end_reason: 'witnessed' })), /Witnessed.*sends nobody on/);
assert.equal(circleNote(circle({ last_lit: ['a', 'b'], end_reason: 'last_lit' })), '');
assert.equal(circleNote(circle({ status: 'playing' })), '');
console.log("console words: progress without the Final, ranked standings, the Witnessed note, the Exorcist's Final table");
