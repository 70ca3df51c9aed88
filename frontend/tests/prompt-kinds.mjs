// Every prompt the engine can emit has a control in the seat's page: each `kind` of the
// `PromptKind` schema in openapi/openapi.json has its own `case` in public/src/prompt.js (the
// `default` branch is for a page older than its server), and each Ritual use, class action,
// free ability, class reaction and class the schema names has a label (and its fields a step
// in `nextNeed`). Fails when the schema gains one that the UI does not handle.
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
// A self-check: the parsing above finds what it must, so that this test can fail.
if (kinds.length < 10 || useLabels.size < 15) failures.push(`parsed too little: ${kinds.length} kinds, ${useLabels.size} use labels`);

if (failures.length) {
  console.log(`FAIL prompt controls:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`ok   every prompt kind of the schema has a control (${kinds.length} kinds, ${schemas.ReactionKind.enum.length} reactions, ${schemas.ClassId.enum.length} classes)`);
