// The table page: a spectator's view of a live table, or, for a seated player, their seat with
// the prompt panel. Live through the table's event stream; the log tells the game in words.
import { api, ApiError, errorText, html, idempotencyKey, navigate, rememberTable, useData, useSession, useStream } from './lib.js';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Board, PROMPT_KIND, seatName } from './board.js';
import { PromptPanel } from './prompt.js';
import { powersFor, rulesetLabel, showRuleset } from './cards.js';
import { cardNamer, describe } from './describe.js';
import { CircleNav, circleTitle } from './circle-nav.js';
import { ExorcistTablePage } from './exorcist.js';
import { ChatPanel } from './chat.js';
import { EXORCIST } from './games.js';

/**
 * @typedef {import('./board.js').View} View
 * @typedef {import('./board.js').TableInfo} TableInfo
 * @typedef {import('./board.js').Targeting} Targeting
 */

/** The log of a table, newest last. @param {{ lines: { id: string, text: string }[] }} props */
export function Log({ lines }) {
  const ref = useRef(/** @type {HTMLOListElement | null} */ (null));
  useEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines.length]);
  return html`<section class="log" aria-label="Game log"><h3>Log</h3>
    <ol ref=${ref} aria-live="polite" data-testid="log">${lines.map((l) => html`<li key=${l.id}>${l.text}</li>`)}</ol></section>`;
}

const SOUND_KEY = 'flicker.sound';
/** @type {AudioContext | null} */
let audio = null;

/** A short two-note chime (Web Audio, no file): the optional "your turn" sound. */
function chime() {
  try {
    audio = audio || new AudioContext();
    const t = audio.currentTime;
    for (const [i, f] of [[0, 660], [1, 880]]) {
      const o = audio.createOscillator();
      const g = audio.createGain();
      o.frequency.value = f;
      g.gain.setValueAtTime(0.0001, t + i * 0.14);
      g.gain.exponentialRampToValueAtTime(0.2, t + i * 0.14 + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t + i * 0.14 + 0.13);
      o.connect(g).connect(audio.destination);
      o.start(t + i * 0.14);
      o.stop(t + i * 0.14 + 0.14);
    }
  } catch {
    /* no audio: the title and the icon still tell */
  }
}

/** Sets the page's favicon. @param {string} href */
function setFavicon(href) {
  const link = /** @type {HTMLLinkElement | null} */ (document.querySelector('link[rel=icon]'));
  if (link && !link.href.endsWith(href)) link.href = href;
}

/**
 * Attention when a prompt opens for the seat: the title and the favicon change, an optional
 * chime plays (off by default), and a browser notification shows when permitted and the page
 * is in the background.
 * @param {any} prompt @param {boolean} sound
 */
function useAttention(prompt, sound) {
  const pid = prompt ? prompt.id : null;
  useEffect(() => {
    if (!prompt) {
      document.title = 'Flicker';
      setFavicon('/favicon.svg');
      return;
    }
    const what = PROMPT_KIND[prompt.kind] || 'decision';
    document.title = `● Your ${what} · Flicker`;
    setFavicon('/favicon-turn.svg');
    if (sound) chime();
    if (typeof Notification !== 'undefined' && Notification.permission === 'granted' && document.hidden) {
      try {
        new Notification('Flicker: your turn', { body: `Your ${what}`, tag: 'flicker-turn' });
      } catch {
        /* some browsers allow notifications from service workers only */
      }
    }
  }, [pid]);
  useEffect(() => () => {
    document.title = 'Flicker';
    setFavicon('/favicon.svg');
  }, []);
}

/**
 * The table page, for the table's game (`table.game`): Let's Call the Exorcist's own page, or
 * The Final Flicker's.
 * @param {{ id: string, search: string }} props
 */
export function TablePage({ id, search }) {
  const me = useSession();
  const info = useData(() => api('GET', `/tables/${id}`, { anonymous: !me }), [id, me && me.name]);
  if (info.error) return html`<main class="page"><p class="error">${errorText(info.error)}</p></main>`;
  if (!info.data) return html`<main class="page"><p class="loading">Loading the table…</p></main>`;
  if (info.data.table && info.data.table.game === EXORCIST) return html`<${ExorcistTablePage} key=${id} id=${id} search=${search} info=${info} />`;
  return html`<${FlickerTablePage} key=${id} id=${id} search=${search} info=${info} />`;
}

/** @param {{ id: string, search: string, info: { data: any, error: any, reload: () => void } }} props */
function FlickerTablePage({ id, search, info }) {
  const me = useSession();
  const params = new URLSearchParams(search);
  const [seatChoice, setSeatChoice] = useState(/** @type {number | null} */ (params.has('seat') ? Number(params.get('seat')) : null));
  const table = /** @type {TableInfo | null} */ (info.data && info.data.table);
  // My seats: those holding my name (a practice table's creator may hold several).
  const mySeats = table && me ? table.seats.map((n, i) => (n === me.name ? i : -1)).filter((i) => i >= 0) : [];
  const seat = seatChoice !== null && mySeats.includes(seatChoice) ? seatChoice : mySeats.length ? mySeats[0] : null;
  const q = seat !== null ? `?seat=${seat}` : '';
  const state = useData(async () => {
    const [t, p] = await Promise.all([
      api('GET', `/tables/${id}${q}`, { anonymous: seat === null }),
      seat !== null ? api('GET', `/tables/${id}/prompt${q}`) : Promise.resolve(null),
    ]);
    return { t, p };
  }, [id, seat]);
  const [lines, setLines] = useState(/** @type {{ id: string, text: string }[]} */ ([]));
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState('');
  const [targeting, setTargeting] = useState(/** @type {Targeting | undefined} */ (undefined));
  const [joining, setJoining] = useState(false);
  const [reveal, setReveal] = useState(false);
  const [note, setNote] = useState('');
  const [sound, setSound] = useState(() => localStorage.getItem(SOUND_KEY) === 'on');
  const [notify, setNotify] = useState(() => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission));
  const [rematching, setRematching] = useState(false);
  const gid = table && table.gathering ? table.gathering.gathering_id : null;
  const bracket = useData(() => (gid ? api('GET', `/gatherings/${gid}/bracket`, { anonymous: true }) : Promise.resolve(null)), [gid]);
  const tableRef = useRef(table);
  tableRef.current = (state.data && state.data.t.table) || table;

  useEffect(() => setLines([]), [id, seat]);
  // Tables you sit at are listed on the home page (the API has no list of tables).
  useEffect(() => {
    if (table && seat !== null && table.practice) rememberTable(id, `Practice, ${table.seats.length} players`);
  }, [id, seat, !!table]);
  const namer = useMemo(() => cardNamer(null), []);
  // The stream opens once the game has begun (a table waiting for players has no events yet).
  const status = (state.data && state.data.t.table.status) || (table && table.status);
  const streamUrl = status && status !== 'open' ? `/tables/${id}/stream${q}` : null;
  const live = useStream(streamUrl, (type, data, evId) => {
    if (type === 'finished') {
      state.reload();
      return;
    }
    const text = describe(data, (s) => seatName(tableRef.current, s), namer);
    if (text) setLines((ls) => (ls.some((l) => l.id === evId && evId) ? ls : [...ls, { id: evId || String(ls.length), text }]));
    state.reload();
  }, { token: seat !== null, deps: [seat] });

  const openPrompt = state.data && state.data.p ? state.data.p.prompt : null;
  useAttention(openPrompt, sound);
  // A message about an earlier prompt never stays over a later one.
  useEffect(() => setErr(''), [openPrompt && openPrompt.id]);
  useEffect(() => {
    if (!note) return undefined;
    const t = setTimeout(() => setNote(''), 4000);
    return () => clearTimeout(t);
  }, [note]);

  // A slow poll as a safety net (a prompt's clock, a window held open).
  useEffect(() => {
    const t = setInterval(() => state.reload(), 3000);
    return () => clearInterval(t);
  }, [id, seat]);

  if (info.error) return html`<main class="page"><p class="error">${errorText(info.error)}</p></main>`;
  if (!state.data || !table) return html`<main class="page"><p class="loading">Loading the table…</p></main>`;
  const { t, p } = state.data;
  const view = /** @type {View | null} */ (t.view);
  // R10.1.3: cards name their power under the game's ruleset.
  showRuleset(view ? view.ruleset.id : undefined);
  const tinfo = /** @type {TableInfo} */ (t.table);

  /** @param {any} answer */
  async function send(answer) {
    if (!p || !p.prompt) return;
    setBusy(true);
    setErr('');
    try {
      await api('POST', `/tables/${id}/answers`, {
        body: { seat, prompt_id: p.prompt.id, answer },
        headers: { 'Idempotency-Key': idempotencyKey() },
      });
    } catch (e) {
      // R10.4.2: a race with the clock or a window that just closed is not the player's error.
      if (e instanceof ApiError && /stale-prompt$/.test(e.type)) setNote('That question had just closed; here is the current one.');
      else setErr(errorText(e));
    } finally {
      setBusy(false);
      state.reload();
    }
  }

  /** A new practice table like this one: same seats, bots, clocks and class settings. */
  async function rematch() {
    setRematching(true);
    try {
      const settings = view && view.settings ? { classes: !!view.settings.classes, class_bans: view.settings.class_bans || [] } : undefined;
      const r = await api('POST', '/tables', {
        body: { players: tinfo.seats.length, practice: true, bot_delay_ms: 600, clocks: tinfo.clocks, ...(settings ? { settings } : {}) },
      });
      const nid = r.table.table_id;
      for (let s = 0; s < tinfo.seats.length; s++) {
        const bot = tinfo.bots[s];
        await api('POST', `/tables/${nid}/seats`, { body: bot ? { seat: s, bot } : { seat: s } });
      }
      await api('POST', `/tables/${nid}/start`);
      rememberTable(nid, `Practice, ${tinfo.seats.length} players`);
      navigate(`/tables/${nid}`);
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setRematching(false);
    }
  }

  async function concede() {
    if (!confirm('Concede this game? Your Candle goes out.')) return;
    try {
      await api('POST', `/tables/${id}/concede`, { body: { seat } });
      setNote('You conceded. It takes effect once nothing is in progress (an action, a window, an elimination; R10.10.2); until then your prompts are answered with their defaults.');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      state.reload();
    }
  }

  async function join() {
    setJoining(true);
    try {
      await api('POST', `/tables/${id}/seats`, { body: {} });
      info.reload();
      state.reload();
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setJoining(false);
    }
  }

  const seatedNote = seat !== null ? `You play ${seatName(tinfo, seat)}` : 'You are watching as a spectator';
  return html`<main class="page table-page" data-testid="table-page">
    <div class="table-head">
      <h2 data-testid="table-title">${circleTitle(tinfo, bracket.data)}
        <span class="sub"> · ${tinfo.table_id.slice(0, 8)}</span></h2>
      <div class="head-meta">
        <span class=${`live-dot ${live}`} title=${`stream: ${live}`}>${live === 'live' ? 'live' : live}</span>
        <span data-testid="viewer">${seatedNote}</span>
        ${view && html`<span class="ruleset" data-testid="ruleset">${rulesetLabel(view.ruleset)}</span>`}
        ${mySeats.length > 1 && html`<label>Seat <select value=${String(seat)} onChange=${(/** @type {any} */ e) => setSeatChoice(Number(e.target.value))}>
          ${mySeats.map((s) => html`<option value=${String(s)}>${s + 1}</option>`)}</select></label>`}
        ${tinfo.gathering && html`<a href=${`/gatherings/${tinfo.gathering.gathering_id}`}>Gathering</a>`}
        <a href="/rules" target="_blank" rel="noopener" data-testid="table-rules">Rules</a>
        ${view && view.result && html`<label class="reveal-inline"><input type="checkbox" checked=${reveal}
          onChange=${(/** @type {any} */ e) => setReveal(e.target.checked)} /> Reveal every card</label>`}
        ${(tinfo.status === 'finished' || (view && view.result)) && html`<a class="button" href=${`/tables/${id}/replay`} data-testid="replay-link">Replay</a>`}
        ${tinfo.practice && seat !== null && view && view.result && html`<button type="button" data-testid="rematch" disabled=${rematching}
          onClick=${rematch}>Rematch</button>`}
        ${seat !== null && html`<label class="toggle" title="A short chime when a decision is yours"><input type="checkbox" checked=${sound}
          data-testid="sound" onChange=${(/** @type {any} */ e) => { setSound(e.target.checked); localStorage.setItem(SOUND_KEY, e.target.checked ? 'on' : 'off'); if (e.target.checked) chime(); }} /> Sound</label>`}
        ${seat !== null && notify === 'default' && html`<button type="button" class="secondary" data-testid="notify"
          onClick=${async () => setNotify(await Notification.requestPermission())}>Notify me</button>`}
      </div>
    </div>
    <${CircleNav} gathering=${tinfo.gathering} tableId=${tinfo.table_id} />
    ${err && html`<p class="error" role="alert">${err}</p>`}
    ${note && html`<p class="note" role="status" data-testid="note">${note}</p>`}
    ${!view
      ? html`<section class="waiting"><p>Waiting for players: ${tinfo.seats.filter(Boolean).length}/${tinfo.seats.length} seated.</p>
          <ul>${tinfo.seats.map((n, i) => html`<li>Seat ${i + 1}: ${n || html`<em>free</em>`}${tinfo.bots[i] ? ' (bot)' : ''}</li>`)}</ul>
          ${me && !mySeats.length && html`<button type="button" disabled=${joining} onClick=${join}>Take a seat</button>`}
          ${me && me.name === tinfo.creator && tinfo.seats.every(Boolean) && html`<button type="button"
            onClick=${async () => { try { await api('POST', `/tables/${id}/start`); info.reload(); state.reload(); } catch (e) { setErr(errorText(e)); } }}>Start</button>`}
          <${ChatPanel} id=${id} seat=${seat} table=${tinfo} />
        </section>`
      : html`<div class=${`table-layout${seat !== null && p && p.prompt ? ' has-prompt' : ''}`}>
          <${Board} view=${view} table=${tinfo} clock=${t.clock} me=${seat} targeting=${targeting} reveal=${reveal && !!view.result} />
          <aside class="side">
            ${seat !== null && html`<${PromptPanel} prompt=${p && p.prompt} clock=${(p && p.clock) || t.clock} view=${view} table=${tinfo}
              answer=${send} busy=${busy} setTargeting=${setTargeting} />`}
            <${Log} lines=${lines} />
            <${ChatPanel} id=${id} seat=${seat} table=${tinfo} />
            <details class="legend"><summary>Card powers</summary><dl>${Object.entries(powersFor(view && view.ruleset.id)).map(([r, p]) =>
              html`<div><dt>${r}</dt><dd>${p}</dd></div>`)}</dl>
              <p class="hint">${view && view.ruleset.id === 'classic-1.0'
                ? 'A–10 can also Haunt a neighbour. A 4 Salts (cancels) an action that targets you.'
                : 'A–10 can also Haunt a neighbour. A 5 Salts (cancels) an action in its window.'}</p></details>
            ${seat !== null && view && !view.result && view.players[seat] && view.players[seat].lit && html`<button type="button"
              class="danger" onClick=${concede}>Concede</button>`}
          </aside>
        </div>`}
  </main>`;
}
