// The replay viewer: the whole replay fetched once (`GET /tables/{id}/replay/steps`), then a
// timeline scrubber, step back and forward, play and pause with a speed, a move list to jump
// from, jumps to eliminations and, after the game, a reveal toggle showing every hidden card.
// "Copy position" copies the position at the current step (R10.13, `GET /tables/{id}/position`,
// as you may see it); "Practice from here" starts a practice table there against bots (a whole
// position only: after the game, or your own practice against bots).
import { api, errorText, html, navigate, rememberTable, useSession } from './lib.js';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Board, seatName } from './board.js';
import { rulesetLabel, showRuleset } from './cards.js';
import { cardNamer, describe } from './describe.js';
import { Icon } from './icons.js';
import { ExorcistBoard, describeExorcist } from './exorcist.js';
import { SeenBySeat } from './exorcist-seen.js';
import { EXORCIST } from './games.js';

/**
 * @typedef {import('./api.js').ReplaySteps} ReplaySteps
 * @typedef {import('./api.js').TableInfo} TableInfo
 * @typedef {import('./api.js').ViewEvent} ViewEvent
 * @typedef {import('./api.js').PositionAt} PositionAt
 */

/** The pool of a complete record (its first step is the `full` game_created), or null. @param {ReplaySteps} r */
function poolOf(r) {
  const ev = /** @type {any} */ (r.steps[0] && r.steps[0].event);
  return ev && ev.type === 'full' && ev.event && ev.event.payload ? ev.event.payload.pool || null : null;
}

/** An event's type in words, the stored event's for a complete record ("class chosen"). @param {ViewEvent} ev */
function eventName(ev) {
  const inner = /** @type {any} */ (ev).event;
  const type = ev.type === 'full' && inner && typeof inner.type === 'string' ? inner.type : ev.type;
  return type.replace(/_/g, ' ');
}

/** @param {{ id: string }} props */
export function ReplayPage({ id }) {
  const me = useSession();
  const [table, setTable] = useState(/** @type {TableInfo | null} */ (null));
  const [replay, setReplay] = useState(/** @type {ReplaySteps | null} */ (null));
  const [at, setAt] = useState(1);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(2);
  const [reveal, setReveal] = useState(false);
  const [err, setErr] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const listRef = useRef(/** @type {HTMLOListElement | null} */ (null));

  /** Fetches the table and every step (once; again only on "Load newer steps"). */
  async function load() {
    try {
      const [t, r] = await Promise.all([
        api('GET', `/tables/${id}`, { anonymous: !me }),
        /** @type {Promise<ReplaySteps>} */ (api('GET', `/tables/${id}/replay/steps`, { anonymous: !me })),
      ]);
      setTable(t.table);
      setReplay(r);
    } catch (e) {
      setErr(errorText(e));
    }
  }
  useEffect(() => {
    setReplay(null);
    setAt(1);
    load();
  }, [id]);

  const total = replay ? replay.total : 0;
  useEffect(() => {
    if (!playing) return;
    if (at >= total) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => setAt((a) => Math.min(total, a + 1)), 1000 / speed);
    return () => clearTimeout(t);
  }, [playing, at, total, speed]);

  // Keyboard: ← → step, space plays.
  useEffect(() => {
    /** @param {KeyboardEvent} e */
    const onKey = (e) => {
      const tag = /** @type {HTMLElement} */ (e.target).tagName;
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
      if (e.key === 'ArrowLeft') setAt((a) => Math.max(1, a - 1));
      else if (e.key === 'ArrowRight') setAt((a) => Math.min(total, a + 1));
      else if (e.key === ' ' && tag !== 'BUTTON') { e.preventDefault(); setPlaying((p) => !p); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [total]);

  // Keep the current move in sight in the move list (scrolling the list only, not the page).
  useEffect(() => {
    const list = listRef.current;
    const cur = list && /** @type {HTMLElement | null} */ (list.querySelector('[aria-current="step"]'));
    if (list && cur) list.scrollTop = cur.offsetTop - list.offsetTop - list.clientHeight / 2;
  }, [at, replay]);

  /** The position at step `n` as this viewer may see it. @param {number} n @returns {Promise<PositionAt>} */
  const positionAt = (n) => api('GET', `/tables/${id}/position?at=${n}&format=json`, { anonymous: !me });

  /** Copies the position at step `n` to the clipboard, with a visible confirmation. @param {number} n */
  async function copyPosition(n) {
    setNote('');
    try {
      const p = await positionAt(n);
      try {
        await navigator.clipboard.writeText(p.text);
        setNote(`Position at step ${n} copied${p.whole ? '' : ' (hidden cards as ?)'}.`);
      } catch {
        // No clipboard (an insecure page, a refused permission): show it to copy by hand.
        window.prompt('Copy the position:', p.text);
        setNote(`Position at step ${n} shown to copy.`);
      }
    } catch (e) {
      setNote(errorText(e));
    }
  }

  /** Starts a practice table from the position at step `n`, bots in the other seats, and goes there. @param {number} n */
  async function practiceFrom(n) {
    if (!me || !table) return;
    setNote('');
    setBusy(true);
    try {
      const p = await positionAt(n);
      if (!p.whole) throw new Error('Only a whole position can start a table: after the game, or in your own practice against bots.');
      const players = table.seats.length;
      const mine = Math.max(0, table.seats.findIndex((s) => s === me.name));
      const r = await api('POST', '/tables', { body: { players, practice: true, bot_delay_ms: 600, clocks: table.clocks, position: p.text } });
      const nid = r.table.table_id;
      for (let s = 0; s < players; s++) {
        await api('POST', `/tables/${nid}/seats`, { body: s === mine ? { seat: s } : { seat: s, bot: 'heuristic' } });
      }
      await api('POST', `/tables/${nid}/start`);
      rememberTable(nid, `Practice from step ${n}, ${players} players`);
      navigate(`/tables/${nid}`);
    } catch (e) {
      setNote(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  const namer = useMemo(() => cardNamer(replay ? poolOf(replay) : null), [replay]);
  const who = (/** @type {number | null | undefined} */ s) => seatName(table, s);
  const exorcist = !!table && table.game === EXORCIST;
  const moves = useMemo(() => (replay ? replay.steps.map((s) => (exorcist ? describeExorcist(s.event, who) : describe(s.event, who, namer)) || eventName(s.event)) : []), [replay, table, namer]);
  if (err) return html`<main class="page"><p class="error">${err}</p></main>`;
  if (!replay || !table) return html`<main class="page"><p class="loading">Loading the replay…</p></main>`;
  if (total === 0) return html`<main class="page"><p class="muted">Nothing to replay yet.</p></main>`;
  const n = Math.min(Math.max(1, at), total);
  const step = replay.steps[n - 1];
  const finished = !!step.view.result || table.status === 'finished';
  const complete = step.event.type === 'full';
  const elims = replay.eliminations;
  const canReveal = finished && complete;
  // R10.13: positions are The Final Flicker's.
  const positions = table.game !== 'lets-call-the-exorcist';
  showRuleset(step.view.ruleset && step.view.ruleset.id);

  return html`<main class="page replay-page" data-testid="replay-page">
    <div class="table-head">
      <h2>Replay <span class="sub">· ${id.slice(0, 8)}</span></h2>
      <div class="head-meta"><span class="ruleset" data-testid="ruleset">${rulesetLabel(step.view.ruleset)}</span><a href=${`/tables/${id}`}>Table</a> <a href="/rules" target="_blank" rel="noopener">Rules</a>
        ${table.status !== 'finished' && html`<button type="button" class="linklike" onClick=${load} data-testid="reload-steps">Load newer steps</button>`}
        ${table.status === 'finished' && html`<a href=${`/api/v1/tables/${id}/replay.jsonl`} download=${`${id}.jsonl`}>Download (JSON Lines)</a>`}</div>
    </div>
    <div class="timeline" role="group" aria-label="Timeline">
      <button type="button" onClick=${() => setAt(1)} aria-label="First step" title="First step"><${Icon} name="first" /></button>
      <button type="button" onClick=${() => setAt(Math.max(1, n - 1))} aria-label="Step back" title="Step back (←)" data-testid="back"><${Icon} name="back" /></button>
      <button type="button" onClick=${() => { if (n >= total) setAt(1); setPlaying(!playing); }} aria-label=${playing ? 'Pause' : 'Play'}
        title=${playing ? 'Pause (Space)' : 'Play (Space)'} data-testid="play" class="play"><${Icon} name=${playing ? 'pause' : 'play'} /></button>
      <button type="button" onClick=${() => setAt(Math.min(total, n + 1))} aria-label="Step forward" title="Step forward (→)" data-testid="forward"><${Icon} name="forward" /></button>
      <button type="button" onClick=${() => setAt(total)} aria-label="Last step" title="Last step" data-testid="end"><${Icon} name="last" /></button>
      <input type="range" min="1" max=${total} value=${n} aria-label="Step" data-testid="scrubber"
        onInput=${(/** @type {any} */ e) => setAt(Number(e.target.value))} />
      <span class="step-count" data-testid="step">${n} / ${total}</span>
      <label>Speed <select value=${String(speed)} onChange=${(/** @type {any} */ e) => setSpeed(Number(e.target.value))} data-testid="speed">
        ${[0.5, 1, 2, 4, 8, 16].map((s) => html`<option value=${String(s)}>${s}×</option>`)}</select></label>
    </div>
    <div class="timeline-marks">
      ${elims.length > 0 && html`<span>Eliminations:</span>`}
      ${elims.map((e, i) => html`<button type="button" class="chip" data-testid="elimination" onClick=${() => setAt(e)}>#${i + 1} at step ${e}</button>`)}
      ${!exorcist && html`<label class=${`reveal${canReveal ? '' : ' disabled'}`} title=${canReveal ? 'Show every hidden card' : 'Every card is shown only after the game'}>
        <input type="checkbox" checked=${reveal && canReveal} disabled=${!canReveal} data-testid="reveal"
          onChange=${(/** @type {any} */ e) => setReveal(e.target.checked)} /> Reveal hidden cards</label>`}
    </div>
    ${positions && html`<div class="position-actions" role="group" aria-label="Position">
      <button type="button" class="small" data-testid="copy-position" onClick=${() => copyPosition(n)}>Copy position</button>
      <button type="button" class="small" data-testid="practice-from-here" disabled=${busy || !me || !finished}
        title=${!me ? 'Sign in to practise' : finished ? 'A practice table from this step, bots in the other seats' : 'After the game'}
        onClick=${() => practiceFrom(n)}>${busy ? 'Starting…' : 'Practice from here'}</button>
      <span class="muted" role="status" aria-live="polite" data-testid="position-note">${note}</span>
    </div>`}
    <p class="step-text" data-testid="step-text" aria-live="polite">${moves[n - 1]}</p>
    <div class="replay-layout">
      ${exorcist ? html`<div class="xo-replay-main"><${ExorcistBoard} view=${/** @type {any} */ (step.view)} table=${table} me=${null} />
          <${SeenBySeat} replay=${replay} n=${n} table=${table} /></div>`
        : html`<${Board} view=${step.view} table=${table} reveal=${reveal && canReveal} me=${null} />`}
      <section class="moves" aria-label="Moves"><h3>Moves</h3>
        <ol ref=${listRef} data-testid="moves">${moves.map((m, i) => html`<li key=${i}><button type="button" class="move"
          aria-current=${i + 1 === n ? 'step' : undefined} data-testid="move" onClick=${() => { setPlaying(false); setAt(i + 1); }}>
          <span class="move-n">${i + 1}</span> ${m}</button></li>`)}</ol></section>
    </div>
  </main>`;
}
