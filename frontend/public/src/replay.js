// The replay viewer: a timeline scrubber, step back and forward, play and pause with a speed,
// jumps to eliminations and, after the game, a reveal toggle showing every hidden card.
import { api, errorText, html, useSession } from './lib.js';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Board, seatName } from './board.js';
import { cardNamer, describe } from './describe.js';
import { Icon } from './icons.js';

/** @param {{ id: string }} props */
export function ReplayPage({ id }) {
  const me = useSession();
  const [table, setTable] = useState(/** @type {any} */ (null));
  const [step, setStep] = useState(/** @type {any} */ (null));
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(2);
  const [reveal, setReveal] = useState(false);
  const [pool, setPool] = useState(/** @type {any[] | null} */ (null));
  const [err, setErr] = useState('');
  const cache = useRef(/** @type {Map<number, any>} */ (new Map()));

  useEffect(() => {
    (async () => {
      try {
        const t = await api('GET', `/tables/${id}`, { anonymous: !me });
        setTable(t.table);
        const first = await api('GET', `/tables/${id}/replay?at=1`, { anonymous: !me });
        cache.current.set(1, first);
        const ev = first.event;
        if (ev && ev.type === 'full' && ev.event && ev.event.payload) setPool(ev.event.payload.pool || null);
        setStep(first);
        setAt(1);
      } catch (e) {
        setErr(errorText(e));
      }
    })();
  }, [id]);

  /** @param {number} n */
  async function load(n) {
    const c = cache.current.get(n);
    if (c) return c;
    const s = await api('GET', `/tables/${id}/replay?at=${n}`, { anonymous: !me });
    cache.current.set(n, s);
    return s;
  }

  useEffect(() => {
    if (!at) return;
    let stale = false;
    load(at).then((s) => { if (!stale) setStep(s); }).catch((e) => setErr(errorText(e)));
    return () => { stale = true; };
  }, [at]);

  const total = step ? step.total : 0;
  useEffect(() => {
    if (!playing) return;
    if (at >= total) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => setAt((a) => Math.min(total, a + 1)), 1000 / speed);
    return () => clearTimeout(t);
  }, [playing, at, total, speed, step]);

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

  const namer = useMemo(() => cardNamer(pool), [pool]);
  if (err) return html`<main class="page"><p class="error">${err}</p></main>`;
  if (!step || !table) return html`<main class="page"><p class="loading">Loading the replay…</p></main>`;
  const finished = !!step.view.result || table.status === 'finished';
  const complete = step.event && step.event.type === 'full';
  const who = (/** @type {number | null | undefined} */ s) => seatName(table, s);
  const text = describe(step.event, who, namer) || (step.event ? step.event.type.replace(/_/g, ' ') : '');
  const elims = /** @type {number[]} */ (step.eliminations || []);
  const canReveal = finished && complete;

  return html`<main class="page replay-page" data-testid="replay-page">
    <div class="table-head">
      <h2>Replay <span class="sub">· ${id.slice(0, 8)}</span></h2>
      <div class="head-meta"><a href=${`/tables/${id}`}>Table</a>
        <a href=${`/api/v1/tables/${id}/replay.jsonl`} download=${`${id}.jsonl`}>Download (JSON Lines)</a></div>
    </div>
    <div class="timeline" role="group" aria-label="Timeline">
      <button type="button" onClick=${() => setAt(1)} aria-label="First step" title="First step"><${Icon} name="first" /></button>
      <button type="button" onClick=${() => setAt(Math.max(1, at - 1))} aria-label="Step back" title="Step back (←)" data-testid="back"><${Icon} name="back" /></button>
      <button type="button" onClick=${() => { if (at >= total) setAt(1); setPlaying(!playing); }} aria-label=${playing ? 'Pause' : 'Play'}
        data-testid="play" class="play"><${Icon} name=${playing ? 'pause' : 'play'} /></button>
      <button type="button" onClick=${() => setAt(Math.min(total, at + 1))} aria-label="Step forward" title="Step forward (→)" data-testid="forward"><${Icon} name="forward" /></button>
      <button type="button" onClick=${() => setAt(total)} aria-label="Last step" title="Last step" data-testid="end"><${Icon} name="last" /></button>
      <input type="range" min="1" max=${total} value=${at} aria-label="Step" data-testid="scrubber"
        onInput=${(/** @type {any} */ e) => setAt(Number(e.target.value))} />
      <span class="step-count" data-testid="step">${at} / ${total}</span>
      <label>Speed <select value=${String(speed)} onChange=${(/** @type {any} */ e) => setSpeed(Number(e.target.value))} data-testid="speed">
        ${[0.5, 1, 2, 4, 8, 16].map((s) => html`<option value=${String(s)}>${s}×</option>`)}</select></label>
    </div>
    <div class="timeline-marks">
      ${elims.length > 0 && html`<span>Eliminations:</span>`}
      ${elims.map((e, i) => html`<button type="button" class="chip" data-testid="elimination" onClick=${() => setAt(e)}>#${i + 1} at step ${e}</button>`)}
      <label class=${`reveal${canReveal ? '' : ' disabled'}`} title=${canReveal ? 'Show every hidden card' : 'Every card is shown only after the game'}>
        <input type="checkbox" checked=${reveal && canReveal} disabled=${!canReveal} data-testid="reveal"
          onChange=${(/** @type {any} */ e) => setReveal(e.target.checked)} /> Reveal hidden cards</label>
    </div>
    <p class="step-text" data-testid="step-text" aria-live="polite">${text}</p>
    <${Board} view=${step.view} table=${table} reveal=${reveal && canReveal} me=${null} />
  </main>`;
}
