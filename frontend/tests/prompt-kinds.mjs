// Every prompt the engine can emit has a control in the seat's page: each `kind` of the
// `PromptKind` schema in openapi/openapi.json has its own `case` in public/src/prompt.js (the
// `default` branch is for a page older than its server), and each Ritual use, class action,
// free ability, class reaction and class the schema names has a label (and its fields a step
// in `nextNeed`). Let's Call the Exorcist's too: each `prompt` of the `ExorcistPromptKind`
// schema has its own `case` in the ExorcistPromptPanel of public/src/exorcist.js, a name in
// EXORCIST_PROMPT, and each legal-answer list the prompt carries (`cards`, `seats`,
// `positions`, `target`) is used by that case or, for cards and positions, by the board's
// buttons; each `ExorcistAnswer` variant is sent somewhere. Fails when the schema gains one
// that the UI does not handle.
//
//   node frontend/tests/prompt-kinds.mjs
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLASSES } from '../public/src/classes.js';

const here = dirname(fileURLToPath(import.meta.url));
const spec = JSON.parse(readFileSync(resolve(here, '../../openapi/openapi.json'), 'utf8'));
const source = readFileSync(resolve(here, '../public/src/prompt.js'), 'utf8');
// The controls: the switch of the PromptPanel component (not the helpers above it).
const panel = source.slice(source.indexOf('export function PromptPanel'));
const board = readFileSync(resolve(here, '../public/src/board.js'), 'utf8');
const schemas = spec.components.schemas;

/** The tag values of a tagged `oneOf` schema. @param {string} name @param {string} tag */
function tags(name, tag) {
  const s = schemas[name];
  if (!s || !Array.isArray(s.oneOf)) throw new Error(`schema ${name} is not a oneOf`);
  return s.oneOf.map((/** @type {any} */ v) => {
    const e = v.properties && v.properties[tag] && v.properties[tag].enum;
    if (!e || e.length !== 1) throw new Error(`${name}: a variant without a single \`${tag}\``);
    return { value: e[0], fields: Object.keys(v.properties).filter((k) => k !== tag) };
  });
}

/** The keys of the object literal assigned to `const NAME = {` in `text`. @param {string} text @param {string} name */
function keysOf(text, name) {
  const at = text.indexOf(`${name} = {`);
  if (at < 0) throw new Error(`no ${name} in the source`);
  const body = text.slice(at, text.indexOf('\n};', at));
  return new Set([...body.matchAll(/(?:^|[\s{,])([a-z_]+):/g)].map((m) => m[1]));
}

const failures = [];
const kinds = tags('PromptKind', 'kind');
const useLabels = keysOf(source, 'USE_LABEL');
const abilityLabels = keysOf(source, 'ABILITY_LABEL');
const reactions = keysOf(source, 'REACTION');
const kindLabels = keysOf(board, 'PROMPT_KIND');
for (const { value } of kinds) {
  if (!new RegExp(`\\n\\s*case '${value}':`).test(panel)) failures.push(`prompt kind \`${value}\` has no control (no \`case '${value}':\` in prompt.js)`);
  if (!kindLabels.has(value)) failures.push(`prompt kind \`${value}\` has no name in PROMPT_KIND (board.js)`);
}
// The fields a declaration step of `nextNeed` knows how to ask for.
const STEPS = new Set(['targets', 'destinations', 'recipients', 'ghosts', 'modes', 'cards', 'choices', 'two']);
for (const [schema, tag, labels] of /** @type {const} */ ([['UseOption', 'action', useLabels], ['ClassActionOption', 'action', useLabels], ['AbilityOption', 'ability', abilityLabels]])) {
  for (const { value, fields } of tags(schema, tag)) {
    if (!labels.has(value)) failures.push(`${schema} \`${value}\` has no label in prompt.js`);
    for (const f of fields) if (!STEPS.has(f)) failures.push(`${schema} \`${value}\`: nextNeed cannot ask for \`${f}\``);
  }
}
for (const r of schemas.ReactionKind.enum) if (!reactions.has(r)) failures.push(`reaction \`${r}\` has no button text in REACTION (prompt.js)`);
for (const c of schemas.ClassId.enum) {
  const info = CLASSES[c];
  if (!info || !info.name || !info.text) failures.push(`class \`${c}\` has no name and description in classes.js`);
}
// Let's Call the Exorcist (X12): the panel's switch, the names, the legal-answer fields.
const exo = readFileSync(resolve(here, '../public/src/exorcist.js'), 'utf8');
const exoPanel = exo.slice(exo.indexOf('export function ExorcistPromptPanel'), exo.indexOf('export function PrivateLog'));
const exoBoard = exo.slice(exo.indexOf('export function ExorcistBoard'), exo.indexOf('export function ExorcistPromptPanel'));
const exoKinds = tags('ExorcistPromptKind', 'prompt');
const exoLabels = keysOf(exo, 'EXORCIST_PROMPT');
/** The `case 'x':` bodies of the panel's switch, by kind (a case falling through to the next shares its body). */
function caseBody(/** @type {string} */ kind) {
  const at = exoPanel.search(new RegExp(`\\n\\s*case '${kind}':`));
  if (at < 0) return null;
  const end = exoPanel.indexOf('break;', at);
  return exoPanel.slice(at, end < 0 ? undefined : end);
}
for (const { value, fields } of exoKinds) {
  const body = caseBody(value);
  if (body === null) {
    failures.push(`Exorcist prompt \`${value}\` has no control (no \`case '${value}':\` in ExorcistPromptPanel, exorcist.js)`);
    continue;
  }
  if (!exoLabels.has(value)) failures.push(`Exorcist prompt \`${value}\` has no name in EXORCIST_PROMPT (exorcist.js)`);
  for (const f of fields) {
    if (f === 'lifted' || f === 'chain') continue; // shown, not answered
    // Cards are tapped on the board (and "any card" in the panel); tie positions both.
    const used = new RegExp(`\\bp\\.${f}\\b`).test(body) || (f === 'cards' && /\bp\.cards\b/.test(exoBoard)) || (f === 'positions' && /\bprompt\.positions\b/.test(exoBoard));
    if (!used) failures.push(`Exorcist prompt \`${value}\`: its legal answers \`${f}\` are not offered`);
  }
}
for (const { value } of tags('ExorcistAnswer', 'answer')) {
  if (!new RegExp(`answer: '${value}'`).test(exo)) failures.push(`Exorcist answer \`${value}\` is never sent by exorcist.js`);
}
if (exoKinds.length < 12) failures.push(`parsed too little: ${exoKinds.length} Exorcist prompt kinds`);

// A self-check: the parsing above finds what it must, so that this test can fail.
if (kinds.length < 10 || useLabels.size < 15) failures.push(`parsed too little: ${kinds.length} kinds, ${useLabels.size} use labels`);

if (failures.length) {
  console.log(`FAIL prompt controls:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`ok   every prompt kind of the schema has a control (${kinds.length} kinds, ${schemas.ReactionKind.enum.length} reactions, ${schemas.ClassId.enum.length} classes; Let's Call the Exorcist: ${exoKinds.length} prompt kinds)`);
