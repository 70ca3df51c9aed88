// Home, sign in, practice tables, the organiser console and the gathering page.
import {
  ApiError, adoptSession, api, errorText, html, MY_TABLES, navigate, rememberTable, setSession, signIn, signUp, useData, useSession,
  useStored, useStream,
} from './lib.js';
import { useState } from 'preact/hooks';
import { ordinal } from './describe.js';
import { Icon } from './icons.js';
import { CLASSES, CLASSIC_ROSTER, className, classText } from './classes.js';
import { EXORCIST, GAME_TITLE, gatheringWords } from './games.js';

/**
 * @typedef {import('./api.js').GatheringSummary} GatheringSummary
 * @typedef {import('./api.js').GatheringSettings} GatheringSettings
 * @typedef {import('./api.js').Bracket} Bracket
 * @typedef {import('./api.js').CircleView} CircleView
 * @typedef {import('./api.js').StageView} StageView
 * @typedef {import('./api.js').Standing} Standing
 * @typedef {import('./api.js').ClassId} ClassId
 * @typedef {import('./api.js').TableList} TableList
 * @typedef {import('./api.js').CirclePreview} CirclePreview
 * @typedef {import('./games.js').GameName} GameName
 */

/** @type {Record<string, string>} */
const STATUS = { registering: 'Registering', running: 'Live', paused: 'Paused', finished: 'Finished', cancelled: 'Cancelled' };

/** @param {{ status: string }} props */
function StatusBadge({ status }) {
  return html`<span class=${`status st-${status}`}>${STATUS[status] || status}</span>`;
}

/**
 * The progress line: qualifying circles ended out of those expected, the last stage's single
 * circle (The Final Flicker's Final Ritual, the Exorcist's Final table; counted by the API in
 * `circles_expected`, its end as `final_ritual` for both) named on its own, never in the total.
 * @param {GatheringSummary} g
 */
export function progressText(g) {
  const p = g.progress || { stage: 0, circles_ended: 0, circles_expected: 0 };
  if (g.status === 'registering') return `${g.registered} registered`;
  const qualifying = Math.max(0, p.circles_expected - 1);
  const ended = Math.min(p.circles_ended, qualifying);
  const finalDone = g.status === 'finished' && g.end_reason === 'final_ritual';
  const final = `the ${gatheringWords(g.settings?.game).final}`;
  const finalPart = finalDone ? `${final} has ended` : ended >= qualifying && p.stage > 0 ? `${final} is being played` : `then ${final}`;
  if (g.status === 'cancelled') return `cancelled at stage ${p.stage}: ${ended}/${qualifying} circles ended`;
  if (qualifying === 0) return `stage ${p.stage}: ${finalPart}`;
  // Once every qualifying circle has ended the stage under way is the last one: the counts are
  // the qualifying circles of every stage, not of that one.
  if (ended >= qualifying && p.stage > 0) return `${ended}/${qualifying} qualifying circles ended · ${finalPart}`;
  return `stage ${p.stage}: ${ended}/${qualifying} qualifying circles ended · ${finalPart}`;
}

/** @param {{ g: GatheringSummary }} props */
function Progress({ g }) {
  const p = g.progress || { stage: 0, circles_ended: 0, circles_expected: 0 };
  const pct = p.circles_expected ? Math.round((100 * p.circles_ended) / p.circles_expected) : g.status === 'finished' ? 100 : 0;
  return html`<div class="progress" data-testid="progress"><div class="bar"><span style=${{ width: `${pct}%` }}></span></div>
    <span>${progressText(g)}</span></div>`;
}

/** @type {Record<string, number>} */
const STANDING_ORDER = { winner: 0, advanced: 1, playing: 2, out: 3, registered: 4 };

/**
 * R9.9.1: standings ranked. The winner first; then the players still in, by how far they are
 * (the stage reached, through before playing, then the placing in their circle), with a
 * provisional position shared by equals ("=3"); then those out, by their final rank (shared on
 * ties, as the API gives it).
 * @param {Standing[]} rows
 * @returns {{ row: Standing, position: string }[]}
 */
export function rankStandings(rows) {
  /** @param {Standing} r */
  const final = (r) => r.rank !== null && r.rank !== undefined;
  /** @param {Standing} r @returns {number[]} */
  const key = (r) => (r.status === 'winner'
    ? [0, r.rank ?? 1]
    : !final(r)
      ? [1, -r.stage, STANDING_ORDER[r.status] ?? 9, r.placing ?? Number.MAX_SAFE_INTEGER]
      : [2, /** @type {number} */ (r.rank)]);
  const sorted = [...rows].sort((a, b) => {
    const ka = key(a), kb = key(b);
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) if ((ka[i] ?? 0) !== (kb[i] ?? 0)) return (ka[i] ?? 0) - (kb[i] ?? 0);
    return a.name.localeCompare(b.name);
  });
  /** @type {{ row: Standing, position: string }[]} */
  const out = [];
  sorted.forEach((row, i) => {
    if (final(row)) {
      out.push({ row, position: String(row.rank) });
      return;
    }
    const prev = i > 0 ? sorted[i - 1] : null;
    const same = prev && !final(prev) && key(prev).join() === key(row).join();
    out.push({ row, position: same ? out[i - 1].position : `=${i + 1}` });
  });
  // "=" marks a provisional position only when it is shared.
  /** @type {Map<string, number>} */
  const counts = new Map();
  out.forEach((o) => counts.set(o.position, (counts.get(o.position) || 0) + 1));
  return out.map((o) => (o.position.startsWith('=') && counts.get(o.position) === 1 ? { ...o, position: o.position.slice(1) } : o));
}

/** @type {Record<string, string>} */
const STANDING_STATUS = { registered: 'registered', playing: 'playing', advanced: 'through to the next stage', out: 'out', winner: 'winner' };

/**
 * Ranked standings; with `points` (an Exorcist gathering) a Points column: each player's points
 * at the circle of their standing (the standing's `points`), which with the placing ranks them
 * (X7.6).
 * @param {{ rows: Standing[], points?: boolean }} props
 */
export function StandingsTable({ rows, points }) {
  if (rows.length === 0) return html`<p class="muted">After the first circles end.</p>`;
  const ranked = rankStandings(rows);
  const provisional = ranked.some((r) => r.row.rank === null || r.row.rank === undefined);
  return html`<div class="scroll-x"><table class="standings" data-testid="standings">
    <thead><tr><th>Rank</th><th>Name</th><th>Stage</th><th>Circle</th><th>Placing</th>${points && html`<th>Points</th>`}<th>Status</th></tr></thead>
    <tbody>${ranked.map(({ row: r, position }) => html`<tr class=${`sst-${r.status}${r.rank === null || r.rank === undefined ? ' provisional' : ''}`} data-testid="standing-row"><td>${position}</td><td>${r.name}</td><td>${r.stage}</td><td>${r.circle ?? '–'}</td>
      <td>${r.placing ? ordinal(r.placing) : '–'}</td>${points && html`<td data-testid="standing-points">${r.points ?? '–'}</td>`}<td>${STANDING_STATUS[r.status] || String(r.status).replace(/_/g, ' ')}</td></tr>`)}</tbody></table></div>
    ${provisional && html`<p class="muted small" data-testid="standings-note">Ranks in italics are provisional (= when shared): players still in are ordered by the stage they reached, those through to the next stage first, then by their placing. Final ranks (R9.9.1) replace them as circles end.</p>`}`;
}

// ---------------------------------------------------------------- home

export function HomePage() {
  const me = useSession();
  const list = useData(() => api('GET', '/gatherings', { anonymous: true }), []);
  const tables = useData(() => /** @type {Promise<TableList>} */ (api('GET', '/tables?limit=30', { anonymous: true })), []);
  const [watch, setWatch] = useState('');
  const [mine] = useStored(MY_TABLES, /** @type {{ id: string, label: string, at: number }[]} */ ([]));
  const all = /** @type {GatheringSummary[]} */ (list.data || []);
  const live = all.filter((g) => g.status === 'registering' || g.status === 'running' || g.status === 'paused');
  const done = all.filter((g) => g.status === 'finished' || g.status === 'cancelled');
  /** @param {GatheringSummary} g */
  const row = (g) => html`<li class="gathering-row"><a href=${`/gatherings/${g.gathering_id}`}>${g.name}</a>
    <${StatusBadge} status=${g.status} /> <span class="muted">${g.settings.game === EXORCIST ? `${GAME_TITLE[EXORCIST]} · ` : ''}${g.registered} players · by ${g.organiser}${(g.status === 'finished' || g.status === 'cancelled') ? ''
      : html` · <span data-testid="gathering-spectators">${g.spectators ?? 0} watching</span>`}</span>
    ${g.winner && html`<span class="winner-chip"><${Icon} name="trophy" size=${14} /> ${g.winner}</span>`}</li>`;
  return html`<main class="page home">
    <section class="hero"><h1>The Final Flicker</h1>
      <p>Keep your Candle lit. Haunt your neighbours, Salt their plans, and be the last flame in the circle.</p>
      <p class="muted" data-testid="second-game">Also here: <strong>Let's Call the Exorcist</strong>, 4 to 8 players on secret teams, peeks and bluffs at the table chat.</p>
      <div class="actions">
        <a class="button" href="/practice">Play a practice game</a>
        ${me && me.role === 'organiser' ? html`<a class="button secondary" href="/organiser">Organiser console</a>`
          : !me && html`<a class="button secondary" href="/signin">Sign in</a>`}
      </div></section>
    <div class="columns">
      <section><h2>Live gatherings</h2>
        ${list.error && html`<p class="error">${errorText(list.error)}</p>`}
        ${!list.data ? html`<p class="loading">Loading…</p>` : live.length ? html`<ul class="list">${live.map(row)}</ul>` : html`<p class="muted">None right now.</p>`}</section>
      <section data-testid="live-tables"><h2>Live tables</h2>
        ${tables.error && html`<p class="error">${errorText(tables.error)}</p>`}
        ${!tables.data ? html`<p class="loading">Loading…</p>` : tables.data.tables.length ? html`<ul class="list">${tables.data.tables.map((t) => html`<li class="live-table" data-testid="live-table">
          <a href=${`/tables/${t.table_id}`}>${t.gathering ? `Stage ${t.gathering.stage}, circle ${t.gathering.circle}` : 'Practice table'}</a>
          <span class="muted"> · ${t.status} · ${t.players.filter((x) => x).length} seated · <span data-testid="spectators">${t.spectators} watching</span></span></li>`)}</ul>`
          : html`<p class="muted">No table is playing right now.</p>`}</section>
      <section><h2>Finished gatherings</h2>
        ${list.data && (done.length ? html`<ul class="list">${done.slice(0, 30).map(row)}</ul>` : html`<p class="muted">None yet.</p>`)}</section>
      <section><h2>Practice tables</h2>
        ${mine.length ? html`<ul class="list">${mine.map((t) => html`<li><a href=${`/tables/${t.id}`}>${t.label}</a>
          <span class="muted"> · ${new Date(t.at).toLocaleString()}</span> <a href=${`/tables/${t.id}/replay`} class="muted">replay</a></li>`)}</ul>`
          : html`<p class="muted">Tables you start or join appear here.</p>`}
        <form class="inline" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); if (watch.trim()) navigate(`/tables/${watch.trim()}`); }}>
          <label>Watch a table by id <input value=${watch} onInput=${(/** @type {any} */ e) => setWatch(e.target.value)} placeholder="table id" /></label>
          <button type="submit">Watch</button></form></section>
    </div>
  </main>`;
}

// ---------------------------------------------------------------- sign in

/** @param {{ search: string }} props */
export function SignInPage({ search }) {
  const next = new URLSearchParams(search).get('next') || '/';
  const me = useSession();
  const [mode, setMode] = useState('in');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState('player');
  const [key, setKey] = useState('');
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  if (me) {
    return html`<main class="page narrow"><h2>Signed in</h2><p>You are <strong>${me.name}</strong> (${me.role}).</p>
      <div class="actions"><a class="button" href=${next}>Continue</a>
      <button type="button" class="secondary" onClick=${() => setSession(null)}>Sign out</button></div></main>`;
  }
  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setErr('');
    try {
      if (mode === 'in') await signIn(name, password);
      else await signUp(name, password, role, key);
      navigate(next);
    } catch (x) {
      setErr(errorText(x));
    } finally {
      setBusy(false);
    }
  }
  return html`<main class="page narrow"><h2>${mode === 'in' ? 'Sign in' : 'Create an account'}</h2>
    <div class="tabs" role="tablist">
      <button type="button" role="tab" aria-selected=${mode === 'in' ? 'true' : 'false'} onClick=${() => setMode('in')}>Sign in</button>
      <button type="button" role="tab" aria-selected=${mode === 'up' ? 'true' : 'false'} onClick=${() => setMode('up')} data-testid="tab-signup">Create an account</button>
    </div>
    <form class="stack" onSubmit=${submit}>
      <label>Name <input name="name" autocomplete="username" required value=${name} onInput=${(/** @type {any} */ e) => setName(e.target.value)} /></label>
      <label>Password <input name="password" type="password" autocomplete=${mode === 'in' ? 'current-password' : 'new-password'} required minlength="8"
        value=${password} onInput=${(/** @type {any} */ e) => setPassword(e.target.value)} /></label>
      ${mode === 'up' && html`<label>Role <select name="role" value=${role} onChange=${(/** @type {any} */ e) => setRole(e.target.value)}>
          <option value="player">Player</option><option value="spectator">Spectator</option><option value="organiser">Organiser</option></select></label>
        ${role === 'organiser' && html`<label>Organiser key <input name="organiser_key" value=${key} onInput=${(/** @type {any} */ e) => setKey(e.target.value)}
          placeholder="from flicker.db.organiser-key or FLICKER_ORGANISER_KEY" /></label>`}`}
      ${err && html`<p class="error" role="alert">${err}</p>`}
      <button type="submit" disabled=${busy}>${mode === 'in' ? 'Sign in' : 'Create and sign in'}</button>
    </form></main>`;
}

// ---------------------------------------------------------------- practice

export function PracticePage() {
  const me = useSession();
  const [game, setGame] = useState(/** @type {'the-final-flicker' | 'lets-call-the-exorcist'} */ ('the-final-flicker'));
  const [players, setPlayers] = useState(4);
  const [delay, setDelay] = useState(600);
  const [reaction, setReaction] = useState(15);
  const [decision, setDecision] = useState(60);
  const [ruleset, setRuleset] = useState('current');
  const [classes, setClasses] = useState(false);
  const [target, setTarget] = useState(7);
  const [firstSeeker, setFirstSeeker] = useState(/** @type {'drawn' | 'me'} */ ('drawn'));
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  if (!me) return html`<main class="page narrow"><h2>Practice</h2><p>Sign in to play a practice game against the built-in bots.</p>
    <a class="button" href="/signin?next=/practice">Sign in</a></main>`;
  const exorcist = game === 'lets-call-the-exorcist';
  // X2.1: Let's Call the Exorcist seats 4 to 8; The Final Flicker 2 to 8 here.
  const [min, max] = exorcist ? [4, 8] : [2, 8];
  const seats = Math.min(max, Math.max(min, players || min));
  /** @param {Event} e */
  async function start(e) {
    e.preventDefault();
    setBusy(true);
    setErr('');
    try {
      const r = await api('POST', '/tables', {
        body: exorcist
          // X4.5: the points target; X3.4: the first Seeker, drawn at random or you (seat 1). The
          // tie mini-game's simultaneous picks (X8.3) run on the reaction clock and close at its
          // deadline (R10.6.5).
          ? { game, players: seats, practice: true, bot_delay_ms: delay, clocks: { decision_secs: decision, reaction_secs: reaction },
            settings: { target, first_seeker: firstSeeker === 'me' ? 0 : null } }
          : {
            players: seats, practice: true, bot_delay_ms: delay, clocks: { decision_secs: decision, reaction_secs: reaction },
            // R10.11: the ruleset and classes (A9: classic tables offer the classic roster).
            settings: ruleset === 'current' && !classes ? undefined : { ruleset, classes },
          },
      });
      const id = r.table.table_id;
      await api('POST', `/tables/${id}/seats`, { body: { seat: 0 } });
      for (let s = 1; s < seats; s++) await api('POST', `/tables/${id}/seats`, { body: { seat: s, bot: 'heuristic' } });
      await api('POST', `/tables/${id}/start`);
      rememberTable(id, `${exorcist ? 'Exorcist practice' : 'Practice'}, ${seats} players`);
      navigate(`/tables/${id}`);
    } catch (x) {
      setErr(errorText(x));
    } finally {
      setBusy(false);
    }
  }
  return html`<main class="page narrow"><h2>Practice against bots</h2>
    <form class="stack" onSubmit=${start}>
      <label>Game <select name="game" value=${game} data-testid="practice-game"
        onChange=${(/** @type {any} */ e) => { const g = e.target.value; setGame(g); if (g === 'lets-call-the-exorcist' && players < 4) setPlayers(5); }}>
        <option value="the-final-flicker">The Final Flicker</option>
        <option value="lets-call-the-exorcist">Let's Call the Exorcist</option></select></label>
      <label>Players (you and bots, ${min}-${max}) <input type="number" min=${min} max=${max} value=${seats} name="players"
        onInput=${(/** @type {any} */ e) => setPlayers(Number(e.target.value))} /></label>
      ${exorcist
        ? html`<label>Points to win (X4.5) <input type="number" min="1" max="30" value=${target} name="target" data-testid="practice-target"
            onInput=${(/** @type {any} */ e) => setTarget(Math.min(30, Math.max(1, Number(e.target.value) || 7)))} /></label>
          <label>First Seeker (X3.4) <select name="first_seeker" value=${firstSeeker} data-testid="practice-first-seeker"
            onChange=${(/** @type {any} */ e) => setFirstSeeker(e.target.value)}>
            <option value="drawn">Drawn at random</option><option value="me">You</option></select></label>
          <p class="hint">Teams are secret: Innocents want every Holy Artifact turned up, the Possessed every Cursed one. You play seat 1; bots play the others.</p>`
        : html`<label>Rules <select name="ruleset" value=${ruleset} data-testid="practice-ruleset"
        onChange=${(/** @type {any} */ e) => setRuleset(e.target.value)}>
        <option value="current">Current rules</option>
        <option value="classic-1.0">Classic 1.0 (the 1.0 manual: 5-card hands, Salt is a 4)</option></select></label>
      <label class="check"><input type="checkbox" name="classes" checked=${classes} data-testid="practice-classes"
        onChange=${(/** @type {any} */ e) => setClasses(e.target.checked)} /> Play with classes (each player picks one of three)</label>`}
      <label>Bot pace (ms between bot moves) <input type="number" min="0" max="10000" step="100" value=${delay} name="bot_delay_ms"
        onInput=${(/** @type {any} */ e) => setDelay(Number(e.target.value))} /></label>
      <label>Decision clock (s) <input type="number" min="5" max="86400" value=${decision} onInput=${(/** @type {any} */ e) => setDecision(Number(e.target.value))} /></label>
      <label>${exorcist ? 'Tie mini-game pick clock (s; each pick round lasts this long)' : 'Reaction clock (s)'} <input type="number" min="3" max="86400"
        value=${reaction} name="reaction_secs" onInput=${(/** @type {any} */ e) => setReaction(Number(e.target.value))} /></label>
      ${err && html`<p class="error" role="alert">${err}</p>`}
      <button type="submit" disabled=${busy} data-testid="start-practice">Deal me in</button>
    </form></main>`;
}

// ---------------------------------------------------------------- organiser console

export function OrganiserPage() {
  const me = useSession();
  const list = useData(() => api('GET', '/gatherings', { anonymous: true }), [me && me.name]);
  const [selected, setSelected] = useState(/** @type {string | null} */ (null));
  if (!me) return html`<main class="page narrow"><h2>Organiser console</h2><p>Sign in with an organiser account.</p>
    <a class="button" href="/signin?next=/organiser">Sign in or create an organiser account</a></main>`;
  if (me.role !== 'organiser') return html`<main class="page narrow"><h2>Organiser console</h2>
    <p>${me.name} is a ${me.role} account. Create an organiser account (it needs the server's organiser key).</p>
    <button type="button" onClick=${() => { setSession(null); navigate('/signin?next=/organiser'); }}>Sign in as someone else</button></main>`;
  const all = /** @type {GatheringSummary[]} */ (list.data || []);
  const mine = all.filter((g) => g.organiser === me.name);
  const current = selected || (mine[0] && mine[0].gathering_id) || null;
  return html`<main class="page organiser" data-testid="organiser">
    <h2>Organiser console <span class="sub">· ${me.name}</span></h2>
    <div class="columns">
      <${CreateGathering} onCreated=${(/** @type {string} */ id) => { setSelected(id); list.reload(); }} />
      <section><h3>Your gatherings</h3>
        ${mine.length === 0 ? html`<p class="muted">None yet.</p>` : html`<ul class="list">${mine.map((g) => html`<li>
          <button type="button" class=${`linklike${g.gathering_id === current ? ' current' : ''}`} onClick=${() => setSelected(g.gathering_id)}>${g.name}</button>
          <${StatusBadge} status=${g.status} /> <span class="muted">${g.registered ?? g.players.length} players</span></li>`)}</ul>`}
      </section>
    </div>
    ${current && html`<${Console} id=${current} onChange=${() => list.reload()} />`}
  </main>`;
}

/** Every class id of the roster (R8.0.2), in roster order. */
const CLASS_IDS = /** @type {ClassId[]} */ (Object.keys(CLASSES).filter((id) => !CLASSES[id].classic));

/**
 * The console's new-gathering form: the game, then every setting of `GatheringSettings` an
 * organiser picks for it, with help text: The Final Flicker's (R9.1, R10.7.4, R10.8, R10.11)
 * or the Exorcist's (X2.1, X4.5, rules decisions 72-73), whose gatherings take none of The
 * Final Flicker's own settings (the server refuses them).
 * @param {{ onCreated: (id: string) => void }} props
 */
function CreateGathering({ onCreated }) {
  const [name, setName] = useState('');
  const [game, setGame] = useState(/** @type {GameName} */ ('the-final-flicker'));
  const [maxCircle, setMaxCircle] = useState(8);
  const [advance, setAdvance] = useState(2);
  const [target, setTarget] = useState(7);
  const [finalDark, setFinalDark] = useState(/** @type {GatheringSettings['final_dark'] & string} */ ('empty'));
  const [decision, setDecision] = useState(60);
  const [reaction, setReaction] = useState(15);
  const [delay, setDelay] = useState(0);
  const [roundLimit, setRoundLimit] = useState(40);
  const [saltWindow, setSaltWindow] = useState(/** @type {GatheringSettings['salt_window'] & string} */ ('simultaneous'));
  const [classes, setClasses] = useState(true);
  const [bans, setBans] = useState(/** @type {ClassId[]} */ ([]));
  const [delayKind, setDelayKind] = useState(/** @type {'none' | 'events' | 'secs'} */ ('none'));
  const [delayBy, setDelayBy] = useState(10);
  const [commentary, setCommentary] = useState(false);
  const [abandonment, setAbandonment] = useState(3);
  const [cap, setCap] = useState(0);
  const [checkIn, setCheckIn] = useState(false);
  const [ruleset, setRuleset] = useState(/** @type {'current' | 'classic-1.0'} */ ('current'));
  const [darkMode, setDarkMode] = useState(/** @type {'standard' | 'dark'} */ ('standard'));
  const [err, setErr] = useState('');
  const classic = ruleset === 'classic-1.0';
  const exorcist = game === EXORCIST;
  /** The game and its defaults (rules decision 72: the Exorcist advances 1, circles of 4 to 8). @param {GameName} g */
  const chooseGame = (g) => {
    setGame(g);
    setAdvance(g === EXORCIST ? 1 : 2);
    if (g === EXORCIST) setMaxCircle(Math.min(8, maxCircle));
  };
  /** @param {Event} e */
  async function submit(e) {
    e.preventDefault();
    setErr('');
    /** @type {GatheringSettings} */
    const settings = {
      max_circle: maxCircle, advance, bot_delay_ms: delay, clocks: { decision_secs: decision, reaction_secs: reaction }, commentary, abandonment,
      spectator_delay_events: delayKind === 'events' ? delayBy : 0,
      spectator_delay_secs: delayKind === 'secs' ? delayBy : 0,
      check_in: checkIn,
    };
    if (cap > 0) settings.registration_cap = cap;
    if (exorcist) settings.target = target;
    else {
      Object.assign(settings, {
        final_dark: finalDark, round_limit: roundLimit, salt_window: saltWindow, ruleset,
        classes, class_bans: classes ? bans.filter((b) => !classic || CLASSIC_ROSTER.includes(b)) : [],
      });
      if (classic) settings.dark_mode = darkMode;
    }
    try {
      const g = await api('POST', '/gatherings', { body: { name, game, settings } });
      setName('');
      onCreated(g.gathering_id);
    } catch (x) {
      setErr(errorText(x));
    }
  }
  const num = (/** @type {(n: number) => void} */ set) => (/** @type {any} */ e) => set(Number(e.target.value));
  /** @param {ClassId} id @param {boolean} on */
  const ban = (id, on) => setBans(on ? [...bans.filter((b) => b !== id), id] : bans.filter((b) => b !== id));
  const gameFields = exorcist
    ? html`<p class="help wide" data-testid="min-players">X2.1: Let's Call the Exorcist seats 4 to 8, so a gathering needs at least 4 players to start; every circle, the Final table too, plays one whole game.</p>
    <label>Points to win <input type="number" name="target" min="1" max="30" value=${target} onInput=${num(setTarget)} />
      <small class="help" data-testid="help-target">X4.5, X7.6: every table plays to this many points (1 to 30); when a round ends with someone there, the highest total wins, ties settled by the mini-game (X8).</small></label>
    <label>Largest circle <input type="number" name="max_circle" min="4" max="8" value=${maxCircle} onInput=${num(setMaxCircle)} />
      <small class="help">X2.1, rules decision 72: players per table at most, 4 to 8; more players are split into circles of 4 to 8 (20: 7+7+6).</small></label>
    <label>Advancing from each circle <select name="advance" value=${String(advance)} onChange=${num(setAdvance)}><option value="1">1</option><option value="2">2</option></select>
      <small class="help" data-testid="help-advance">X7.6, rules decision 73: how many of each qualifying circle go on to the next stage, the best-placed: the game's winner first, then by points (equal points: the earlier seat). When fewer than 4 go on, the best-placed others fill the Final table to 4 (decision 74).</small></label>`
    : html`<label>Rules <select name="ruleset" value=${ruleset} data-testid="gathering-ruleset" onChange=${(/** @type {any} */ e) => setRuleset(e.target.value)}>
      <option value="current">Current rules</option><option value="classic-1.0">Classic 1.0</option></select>
      <small class="help">R10.11, appendix A: classic 1.0 is the 1.0 manual: 5-card hands, hand limit 7, Salt is a 4 and only against actions that target you, no Reprieve or Siphon, and its own roster of 25 classes.</small></label>
    ${classic && html`<label>Ghosts of the dead <select name="dark_mode" value=${darkMode} onChange=${(/** @type {any} */ e) => setDarkMode(e.target.value)}>
      <option value="standard">to The Dark</option><option value="dark">split between the neighbours</option></select>
      <small class="help">A3.3 (dark_mode): where a dead player's ghosts go.</small></label>`}
    <label>Largest circle <input type="number" name="max_circle" min="4" max="64" value=${maxCircle} onInput=${num(setMaxCircle)} />
      <small class="help">R9.1.1: players per table at most; more players are split into circles.</small></label>
    <label>Last Lit sent on <select name="advance" value=${String(advance)} onChange=${num(setAdvance)}><option value="1">1</option><option value="2">2</option></select>
      <small class="help" data-testid="help-advance">R9.1.2: how many players each qualifying circle sends on to the next stage. 1: the circle is played to its sole survivor. 2: it stops as soon as two players are still Lit, and both go on.</small></label>
    <label>Final Dark <select name="final_dark" value=${finalDark} onChange=${(/** @type {any} */ e) => setFinalDark(e.target.value)}>
      <option value="empty">empty</option><option value="as_new_game">as a new game</option></select>
      <small class="help" data-testid="help-final-dark">R9.1.3, R9.8.2: The Dark at the start of every later stage (the Final Ritual included). Empty: the surplus cards go out of play face down. As a new game: they form The Dark face up, as at the first stage.</small></label>
    <label>Salt window <select name="salt_window" value=${saltWindow} onChange=${(/** @type {any} */ e) => setSaltWindow(e.target.value)}>
      <option value="simultaneous">simultaneous</option><option value="sequential">sequential</option></select>
      <small class="help">R10.6.6: everyone answers a Salt window at once, or one by one in turn order.</small></label>`;
  return html`<section><h3>New gathering</h3><form class="stack grid2" onSubmit=${submit} data-testid="create-gathering" data-game=${game}>
    <label class="wide">Name <input name="name" required value=${name} onInput=${(/** @type {any} */ e) => setName(e.target.value)} /></label>
    <label class="wide">Game <select name="game" value=${game} data-testid="gathering-game" onChange=${(/** @type {any} */ e) => chooseGame(e.target.value)}>
      <option value="the-final-flicker">${GAME_TITLE['the-final-flicker']}</option><option value=${EXORCIST}>${GAME_TITLE[EXORCIST]}</option></select>
      <small class="help">Every table of the gathering plays it; fixed once created (rules decision 72).</small></label>
    ${gameFields}
    <label>Decision clock (s) <input type="number" name="decision_secs" min="1" value=${decision} onInput=${num(setDecision)} />
      ${exorcist && html`<small class="help">R10.7.2, X12: each turn and choice (a card to turn up, a peek, a target); when it runs out, the prompt's default is taken.</small>`}</label>
    <label>${exorcist ? 'Tie mini-game pick clock (s)' : 'Reaction clock (s)'} <input type="number" name="reaction_secs" min="1" value=${reaction} onInput=${num(setReaction)} />
      ${exorcist && html`<small class="help">X8.3, X8.6, R10.6.5: the mini-game's simultaneous picks stay open this long; a pick not made is a random position.</small>`}</label>
    <label>Bot pace (ms) <input type="number" name="bot_delay_ms" min="0" max="10000" value=${delay} onInput=${num(setDelay)} /></label>
    ${!exorcist && html`<label>Round limit <input type="number" name="round_limit" min="10" value=${roundLimit} onInput=${num(setRoundLimit)} /></label>`}
    <label>Registration cap <input type="number" name="registration_cap" min="0" max="10000" value=${cap} onInput=${num(setCap)} />
      <small class="help">The most players (registrations and bots); 0: no cap but 10,000.${exorcist ? ' At least 4 (X2.1).' : ''}</small></label>
    <label><input type="checkbox" name="check_in" checked=${checkIn} onChange=${(/** @type {any} */ e) => setCheckIn(e.target.checked)} /> Players check in
      <small class="help">Registered players who have not checked in by the start are removed; bots need no check-in.</small></label>
    <label>Abandonment <input type="number" name="abandonment" min="0" max="20" value=${abandonment} onInput=${num(setAbandonment)} />
      <small class="help">R10.7.4: a player whose ${exorcist ? 'turns and choices' : 'Ritual prompts'} time out this many times in a row concedes (0: never).</small></label>
    <fieldset class="wide"><legend>Spectators</legend>
      <label>Spectator delay <select name="spectator_delay" value=${delayKind} onChange=${(/** @type {any} */ e) => setDelayKind(e.target.value)}>
        <option value="none">none</option><option value="events">events behind</option><option value="secs">seconds behind</option></select></label>
      ${delayKind !== 'none' && html`<label>${delayKind === 'events' ? 'Events' : 'Seconds'} <input type="number" name="spectator_delay_by" min="0"
        max=${delayKind === 'events' ? 10000 : 3600} value=${delayBy} onInput=${num(setDelayBy)} /></label>`}
      <label class="check"><input type="checkbox" name="commentary" checked=${commentary} onChange=${(/** @type {any} */ e) => setCommentary(e.target.checked)} />
        Commentary view</label>
      <small class="help">R10.8: spectators, and you, see each table this far behind, so that watching cannot help a seated player. With the commentary view you may watch every table with all cards shown (delayed the same way); no seated player can open it.</small>
    </fieldset>
    ${!exorcist && html`<fieldset class="wide" data-testid="class-settings"><legend>Classes</legend>
      <label class="check"><input type="checkbox" name="classes" checked=${classes}
        onChange=${(/** @type {any} */ e) => setClasses(e.target.checked)} />
        Play with classes</label>
      <small class="help">R8.0.5, R2.7: each player picks one of three classes offered at the start of stage 1 and keeps it in later stages. <a href="/rules#classes">The classes</a>.</small>
      ${classes && html`<details class="bans"><summary>Banned classes (${bans.length})</summary>
        <p class="help">R2.7.2: never offered in stage 1 (ignored at a circle where too few would remain).</p>
        <div class="ban-list">${(classic ? /** @type {ClassId[]} */ (CLASSIC_ROSTER) : CLASS_IDS).map((id) => html`<label class="check" title=${classText(id, ruleset)}><input type="checkbox" name="ban" value=${id}
          checked=${bans.includes(id)} onChange=${(/** @type {any} */ e) => ban(id, e.target.checked)} /> ${className(id)}</label>`)}</div></details>`}
    </fieldset>`}
    ${err && html`<p class="error wide" role="alert">${err}</p>`}
    <button type="submit" class="wide">Create gathering</button></form></section>`;
}

/** A gathering's settings in words, its game's. @param {{ s: GatheringSettings }} props */
function SettingsSummary({ s }) {
  const delay = s.spectator_delay_events ? `${s.spectator_delay_events} events` : s.spectator_delay_secs ? `${s.spectator_delay_secs} s` : 'none';
  const bans = s.class_bans || [];
  const exorcist = s.game === EXORCIST;
  return html`<dl class="settings-summary" data-testid="settings-summary">
    <dt>Game</dt><dd data-testid="set-game">${GAME_TITLE[s.game || 'the-final-flicker']}</dd>
    ${exorcist
      ? html`<dt>Points to win</dt><dd data-testid="set-target">${s.target ?? 7} (X4.5)</dd>
        <dt>Players</dt><dd data-testid="set-min-players">at least ${gatheringWords(s.game).minPlayers} to start (X2.1)</dd>
        <dt>Largest circle</dt><dd>${s.max_circle ?? 8}</dd>
        <dt>Advancing from each circle</dt><dd data-testid="set-advance">${s.advance ?? 1}, by placing and points</dd>`
      : html`<dt>Classes</dt><dd data-testid="set-classes">${s.classes === false ? 'off' : bans.length ? `on, banned: ${bans.map(className).join(', ')}` : 'on'}</dd>
        <dt>Largest circle</dt><dd>${s.max_circle ?? 'one table'}</dd>
        <dt>Last Lit sent on</dt><dd data-testid="set-advance">${s.advance ?? 2}</dd>`}
    <dt>Bot pace</dt><dd>${s.bot_delay_ms ? `${s.bot_delay_ms} ms` : 'no pause'}</dd>
    <dt>Spectator delay</dt><dd data-testid="set-delay">${delay}</dd>
    <dt>Commentary</dt><dd data-testid="set-commentary">${s.commentary ? 'on' : 'off'}</dd>
    <dt>Abandonment</dt><dd>${s.abandonment === 0 ? 'never' : `after ${s.abandonment ?? 3} time-outs in a row`}</dd>
  </dl>`;
}

/**
 * A roster: many existing accounts registered at once, all or nothing, from a CSV file (a
 * `name` column, or one name a line) or names pasted one a line. Every refused row is listed.
 * @param {{ id: string, busy: boolean, onDone: () => void }} props
 */
function RosterForm({ id, busy, onDone }) {
  const [text, setText] = useState('');
  const [report, setReport] = useState(/** @type {{ ok?: string, error?: string, rows?: any[] } | null} */ (null));
  const [sending, setSending] = useState(false);
  const send = async () => {
    setSending(true);
    setReport(null);
    try {
      const a = await api('POST', `/gatherings/${id}/roster`, { csv: text });
      setReport({ ok: `${a.added} registered (${a.registered} in all)` });
      setText('');
      onDone();
    } catch (e) {
      const rows = e instanceof ApiError ? e.problem?.refused : null;
      setReport({ error: errorText(e), rows: rows || [] });
    } finally {
      setSending(false);
    }
  };
  return html`<form class="inline roster" data-testid="roster" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); send(); }}>
    <label>Register a roster (CSV with a <code>name</code> column, or one name a line)
      <textarea rows="3" value=${text} name="roster" placeholder="alice\nbob\ncarol" onInput=${(/** @type {any} */ e) => setText(e.target.value)}></textarea></label>
    <input type="file" accept=".csv,text/csv,text/plain" aria-label="roster file" onChange=${async (/** @type {any} */ e) => { const f = e.target.files?.[0]; if (f) setText(await f.text()); }} />
    <button type="submit" disabled=${busy || sending || !text.trim()} data-testid="roster-send">Register all</button>
    ${report?.ok && html`<p class="muted" role="status" data-testid="roster-ok">${report.ok}</p>`}
    ${report?.error && html`<div class="error" role="alert" data-testid="roster-refused"><p>${report.error}</p>
      ${report.rows && report.rows.length > 0 && html`<ul class="small">${report.rows.slice(0, 50).map((r) => html`<li>line ${r.row}: ${r.name || '(empty)'}: ${r.reason.replace(/-/g, ' ')}</li>`)}
        ${report.rows.length > 50 && html`<li>and ${report.rows.length - 50} more</li>`}</ul>`}</div>`}
  </form>`;
}

/**
 * Invitations for people without an account: codes issued here are shown once, as links to
 * copy or download; each person claims one on the join page with a password of their own.
 * @param {{ id: string }} props
 */
function InviteForm({ id }) {
  const [count, setCount] = useState(10);
  const [links, setLinks] = useState(/** @type {string[]} */ ([]));
  const [err, setErr] = useState('');
  const state = useData(() => api('GET', `/gatherings/${id}/invitations`), [id]);
  const issue = async () => {
    setErr('');
    try {
      const r = await api('POST', `/gatherings/${id}/invitations`, { body: { count } });
      setLinks(r.links.map((/** @type {string} */ l) => `${location.origin}${l}`));
      state.reload();
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const csv = `data:text/csv;charset=utf-8,${encodeURIComponent(`link\n${links.join('\n')}\n`)}`;
  return html`<form class="inline invite" data-testid="invite" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); issue(); }}>
    <label>Invite people without an account <input type="number" min="1" max="10000" value=${count} name="invitations" onInput=${(/** @type {any} */ e) => setCount(Number(e.target.value))} /></label>
    <button type="submit" data-testid="invite-send">Create invitation links</button>
    ${state.data && html`<p class="muted small" data-testid="invite-state">${state.data.issued} issued · ${state.data.claimed.length} claimed · ${state.data.open} open</p>`}
    ${err && html`<p class="error" role="alert">${err}</p>`}
    ${links.length > 0 && html`<div data-testid="invite-links"><p class="muted small">Shown once: send each person one link. They choose their own name and password.</p>
      <textarea readonly rows="4" aria-label="invitation links" value=${links.join('\n')}></textarea>
      <a href=${csv} download=${`invitations-${id}.csv`}>Download as CSV</a></div>`}
  </form>`;
}

/**
 * The join page of an invitation link: the code is in the fragment (never sent to a server);
 * a name and password make the account, registered in the gathering and signed in.
 * @param {{ id: string }} props
 */
export function JoinPage({ id }) {
  const code = new URLSearchParams(location.hash.replace(/^#/, '')).get('code') || '';
  const g = useData(() => /** @type {Promise<GatheringSummary>} */ (api('GET', `/gatherings/${id}`, { anonymous: true })), [id]);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  /** @param {Event} e */
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setErr('');
    try {
      const r = await api('POST', '/invitations/claim', { body: { gathering_id: id, code, name, password }, anonymous: true });
      adoptSession(r.tokens, r.name, 'player');
      navigate(`/gatherings/${id}`);
    } catch (x) {
      setErr(errorText(x));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="page narrow" data-testid="join-page"><h2>Join ${g.data ? g.data.name : 'the gathering'}</h2>
    ${!code ? html`<p class="error">This link holds no invitation code: ask the organiser for your link.</p>` : html`
    <p class="muted">You are invited. Choose the name you will play under and a password (at least 8 characters): the account is yours, and you are registered at once.</p>
    <form class="stack" onSubmit=${submit}>
      <label>Name <input name="name" autocomplete="username" required minlength="3" maxlength="32" pattern="[\\w\\-]+" value=${name} onInput=${(/** @type {any} */ e) => setName(e.target.value)} /></label>
      <label>Password <input name="password" type="password" autocomplete="new-password" required minlength="8" value=${password} onInput=${(/** @type {any} */ e) => setPassword(e.target.value)} /></label>
      ${err && html`<p class="error" role="alert">${err}</p>`}
      <button type="submit" disabled=${busy} data-testid="join">Create my account and register</button>
    </form>`}
  </main>`;
}

/** One gathering's controls. @param {{ id: string, onChange: () => void }} props */
function Console({ id, onChange }) {
  const g = useData(() => /** @type {Promise<GatheringSummary>} */ (api('GET', `/gatherings/${id}`, { anonymous: true })), [id]);
  const standings = useData(() => /** @type {Promise<Standing[]>} */ (api('GET', `/gatherings/${id}/standings`, { anonymous: true })), [id]);
  const exorcist = !!g.data && g.data.settings.game === EXORCIST;
  // While registering, the preview too: it counts whom a start would seat, which enables Start (X2.1).
  useStream(`/gatherings/${id}/stream`, () => {
    g.reload();
    standings.reload();
    if (g.data && g.data.status === 'registering') preview.reload();
    onChange();
  });
  const [player, setPlayer] = useState('');
  const [bots, setBots] = useState(20);
  const [kind, setKind] = useState('heuristic');
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  const [who, setWho] = useState('');
  const [copied, setCopied] = useState(false);
  const preview = useData(() => /** @type {Promise<CirclePreview>} */ (api('GET', `/gatherings/${id}/preview`, { anonymous: true })), [id]);
  /** @param {string} method @param {string} path @param {any} [body] */
  const act = async (method, path, body) => {
    setBusy(true);
    setErr('');
    try {
      await api(method, `/gatherings/${id}${path}`, body === undefined ? {} : { body });
      g.reload();
      preview.reload();
      onChange();
    } catch (x) {
      setErr(errorText(x));
    } finally {
      setBusy(false);
    }
  };
  if (!g.data) return html`<section class="console"><p class="loading">Loading…</p></section>`;
  const d = g.data;
  const st = d.status;
  const words = gatheringWords(d.settings.game);
  // X2.1: an Exorcist gathering starts with 4 players or more (the server refuses fewer).
  const present = preview.data ? preview.data.players : d.registered;
  const tooFew = words.minPlayers > 0 ? present < words.minPlayers : d.registered === 0;
  return html`<section class="console" data-testid="console" data-status=${st} data-game=${d.settings.game || 'the-final-flicker'}>
    <header><h3>${d.name}</h3><${StatusBadge} status=${st} /><a href=${`/gatherings/${id}`} data-testid="open-gathering">Open the gathering page</a></header>
    <${Progress} g=${d} />
    <${SettingsSummary} s=${d.settings} />
    <p class="share">Share: <code data-testid="share-link">${`${location.origin}/gatherings/${id}`}</code>
      <button type="button" class="small" onClick=${() => { navigator.clipboard?.writeText(`${location.origin}/gatherings/${id}`).then(() => setCopied(true), () => {}); }}>${copied ? 'Copied' : 'Copy link'}</button></p>
    ${st === 'registering' && preview.data && html`<p class="muted" data-testid="preview">${preview.data.stages.length
      ? `A start now: ${preview.data.players} players, circles ${preview.data.sizes.join(' → ')} (R9.2${exorcist ? ', X2.1: 4 to 8 a circle' : ''})`
      : `A start now: ${preview.data.players} player(s), no circle to draw${words.minPlayers ? ` (X2.1: at least ${words.minPlayers})` : ''}`}${d.settings.check_in ? ` · ${d.checked_in_count || 0} checked in` : ''}${d.settings.registration_cap ? ` · cap ${d.settings.registration_cap}` : ''}</p>`}
    ${d.winner && html`<p class="winner-banner" data-testid="console-winner"><${Icon} name="trophy" /> Winner: <strong>${d.winner}</strong></p>`}
    ${d.end_reason && !d.winner && html`<p class="muted">Ended: ${d.end_reason}</p>`}
    ${err && html`<p class="error" role="alert">${err}</p>`}
    ${st === 'registering' && html`<div class="columns">
      <form class="inline" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); act('POST', '/registrations', { name: player }).then(() => setPlayer('')); }}>
        <label>Register a player <input value=${player} required placeholder="account name" onInput=${(/** @type {any} */ e) => setPlayer(e.target.value)} /></label>
        <button type="submit" disabled=${busy}>Register</button></form>
      <${RosterForm} id=${id} busy=${busy} onDone=${() => { g.reload(); preview.reload(); onChange(); }} />
      <${InviteForm} id=${id} />
      <form class="inline" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); act('POST', '/bots', { count: bots, kind }); }}>
        <label>Fill with bots <input type="number" min="1" max="500" value=${bots} name="bots" onInput=${(/** @type {any} */ e) => setBots(Number(e.target.value))} /></label>
        <select value=${kind} aria-label="bot kind" onChange=${(/** @type {any} */ e) => setKind(e.target.value)}><option value="heuristic">heuristic</option><option value="random">random</option></select>
        <button type="submit" disabled=${busy} data-testid="add-bots">Add bots</button></form>
    </div>`}
    <div class="actions">
      ${st === 'registering' && html`<button type="button" disabled=${busy || tooFew} data-testid="start" onClick=${() => act('POST', '/start')}>Start</button>
        ${tooFew && words.minPlayers > 0 && html`<span class="muted small" data-testid="too-few">X2.1: at least ${words.minPlayers} players to start</span>`}`}
      ${st === 'running' && html`<button type="button" disabled=${busy} data-testid="pause" onClick=${() => act('POST', '/pause')}>Pause</button>`}
      ${st === 'paused' && html`<button type="button" disabled=${busy} data-testid="resume" onClick=${() => act('POST', '/resume')}>Resume</button>`}
      ${(st === 'registering' || st === 'running' || st === 'paused') && html`<button type="button" class="danger" disabled=${busy}
        onClick=${() => { if (confirm('Cancel this gathering? It ends with no winner.')) act('POST', '/cancel', { reason: 'cancelled by the organiser' }); }}>Cancel</button>`}
    </div>
    ${(st === 'running' || st === 'paused') && html`<form class="inline" data-testid="no-shows" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <label>A player who does not play <input value=${who} name="player" placeholder="player name" onInput=${(/** @type {any} */ e) => setWho(e.target.value)} /></label>
      <button type="button" disabled=${busy || !who} data-testid="drop" onClick=${() => { if (confirm(`Drop ${who}? They concede at their table.`)) act('POST', `/players/${encodeURIComponent(who)}/drop`).then(() => setWho('')); }}>Drop (concede)</button>
      <button type="button" disabled=${busy || !who} data-testid="replace" onClick=${() => act('POST', `/players/${encodeURIComponent(who)}/replace`, { bot: 'heuristic' }).then(() => setWho(''))}>Replace by a bot</button>
      <p class="muted small">A substitute bot plays the seat out but never advances or wins.</p></form>`}
    ${(d.dropped?.length || d.replaced?.length) ? html`<p class="muted" data-testid="dropped">Dropped: ${(d.dropped || []).join(', ') || '—'} · replaced: ${(d.replaced || []).join(', ') || '—'}</p>` : ''}
    ${st !== 'registering' && html`<p class="export">Results: <a href=${`/api/v1/gatherings/${id}/results.csv`} download data-testid="export-csv">CSV</a> · <a href=${`/api/v1/gatherings/${id}/results.json`} download data-testid="export-json">JSON</a></p>`}
    ${st !== 'registering' && html`<details class="console-standings" open><summary>Standings</summary><${StandingsTable} rows=${standings.data || []} points=${exorcist} /></details>`}
    <details><summary>${d.registered} registered</summary><ul class="names">${d.players.map((p) => html`<li>${p.name}${p.bot ? html` <span class="badge bot">bot</span>` : ''}
      ${st === 'registering' && html` <button type="button" class="linklike" aria-label=${`withdraw ${p.name}`} onClick=${() => act('DELETE', `/registrations/${encodeURIComponent(p.name)}`)}>✕</button>`}</li>`)}</ul>
      ${d.registered > d.players.length && html`<p class="muted small">and ${d.registered - d.players.length} more (<a href=${`/api/v1/gatherings/${id}/registrations?limit=1000`}>the full list</a>)</p>`}</details>
  </section>`;
}

// ---------------------------------------------------------------- gathering page

/**
 * Why a finished circle sends nobody on, or ''. R7.8.4, R9.5.3: a Witnessed circle (The Witness
 * and one other were the last Lit) has no winner and no Last Lit; both share the best placing.
 * @param {CircleView} c
 */
export function circleNote(c) {
  if (c.status !== 'finished' || c.last_lit.length > 0) return '';
  if (c.end_reason === 'witnessed') {
    return 'Witnessed (R7.8, R9.5.3): The Witness and the other last Lit player both lose, so this circle sends nobody on; their shared placing counts for the standings only.';
  }
  return 'No winner: this circle sends nobody on (R9.5.3).';
}

/** A class badge with its name and description. @param {{ id: string | null | undefined }} props */
export function ClassBadge({ id }) {
  if (!id) return null;
  return html`<span class="badge class" title=${classText(id)} data-testid="class-badge">${className(id)}</span>`;
}

/** The classes played in a bracket, named and explained. @param {{ b: Bracket }} props */
function ClassLegend({ b }) {
  const ids = [...new Set(b.stages.flatMap((st) => st.circles.flatMap((c) => c.players.map((p) => p.class)).filter((x) => !!x)))];
  if (ids.length === 0) return null;
  return html`<details class="class-legend" data-testid="class-legend"><summary>Classes in play (${ids.length})</summary>
    <dl>${ids.sort().map((id) => html`<dt>${className(id)}</dt><dd>${classText(id)}</dd>`)}</dl>
    <p class="muted small"><a href="/rules#classes">Every class</a></p></details>`;
}

/** @param {{ id: string }} props */
export function GatheringPage({ id }) {
  const me = useSession();
  const [limit, setLimit] = useState(64);
  const data = useData(async () => {
    const [g, b, s, reg] = await Promise.all([
      /** @type {Promise<GatheringSummary>} */ (api('GET', `/gatherings/${id}`, { anonymous: true })),
      /** @type {Promise<Bracket>} */ (api('GET', `/gatherings/${id}/bracket?limit=${limit}`, { anonymous: true })),
      /** @type {Promise<Standing[]>} */ (api('GET', `/gatherings/${id}/standings`, { anonymous: true })),
      me ? api('GET', `/me/gatherings/${id}`).then((r) => r.registration).catch(() => null) : Promise.resolve(null),
    ]);
    // A player's own circles are shown even outside the bracket's window.
    const own = reg && g.status !== 'registering'
      ? /** @type {Bracket} */ (await api('GET', `/gatherings/${id}/bracket?player=${encodeURIComponent(reg.registration.name)}`, { anonymous: true }).catch(() => null))
      : null;
    if (own) {
      for (const st of b.stages) {
        const extra = (own.stages.find((o) => o.stage === st.stage)?.circles || []).filter((c) => !st.circles.some((x) => x.circle === c.circle));
        st.circles = [...extra, ...st.circles];
      }
    }
    return { g, b, s, reg };
  }, [id, limit, me?.name]);
  const ended = data.data && (data.data.g.status === 'finished' || data.data.g.status === 'cancelled');
  const live = useStream(ended ? null : `/gatherings/${id}/stream`, () => data.reload());
  if (data.error) return html`<main class="page"><p class="error">${errorText(data.error)}</p></main>`;
  if (!data.data) return html`<main class="page"><p class="loading">Loading the gathering…</p></main>`;
  const { g, b, s, reg } = data.data;
  const mine = (/** @type {CircleView} */ c) => !!me && c.players.some((p) => p.name === me.name);
  const exorcist = b.game === EXORCIST;
  const words = gatheringWords(b.game);
  return html`<main class="page gathering" data-testid="gathering-page" data-status=${g.status}>
    <div class="table-head"><h2>${g.name} <${StatusBadge} status=${g.status} /></h2>
      <div class="head-meta">${!ended && html`<span class=${`live-dot ${live}`}>${live === 'live' ? 'live' : live}</span>`}<span class="muted" data-testid="gathering-game">${GAME_TITLE[b.game || 'the-final-flicker']} · organised by ${g.organiser}</span></div></div>
    ${g.status === 'paused' && html`<p class="pause-banner" role="status" data-testid="pause-banner">The organiser has paused this gathering: clocks and bots are stopped until it resumes.</p>`}
    <${Progress} g=${g} />
    ${g.status === 'registering' && me && !reg && html`<div class="actions">
      <button type="button" onClick=${async () => { try { await api('POST', `/gatherings/${id}/registrations`, { body: {} }); data.reload(); } catch (e) { alert(errorText(e)); } }}>Register as ${me.name}</button></div>`}
    ${g.status === 'registering' && me && g.settings.check_in && reg && html`<div class="actions">
      ${reg.checked_in ? html`<span class="badge" data-testid="checked-in">checked in</span>`
        : html`<button type="button" data-testid="check-in" onClick=${async () => { try { await api('POST', `/gatherings/${id}/check-ins`, { body: {} }); data.reload(); } catch (e) { alert(errorText(e)); } }}>Check in</button>`}</div>`}
    ${g.winner && html`<p class="winner-banner" data-testid="winner"><${Icon} name="trophy" /> <strong>${g.winner}</strong> wins the gathering</p>`}
    <${ClassLegend} b=${b} />
    <div class="bracket" data-testid="bracket">
      <section class="stage reg"><h3>Registration</h3><p class="muted">${b.registered} players</p>
        <ul class="names small">${g.players.map((p) => html`<li>${p.name}${p.bot ? html` <${Icon} name="bot" size=${12} label="bot" />` : ''}</li>`)}</ul>
        ${g.registered > g.players.length && html`<p class="muted small">and ${g.registered - g.players.length} more</p>`}</section>
      ${b.stages.map((st) => html`<section class="stage" data-testid="stage">
        <h3>${st.final_ritual ? words.final : `Stage ${st.stage}`}</h3>
        <p class="muted">${st.final_ritual ? 'one circle' : `circle sizes ${st.sizes}`}</p>
        ${st.circles.map((c) => html`<article class=${`circ st-${c.status}${mine(c) ? ' mine' : ''}`} id=${`stage-${st.stage}-circle-${c.circle}`}>
          <header><a href=${`/tables/${c.table_id}`} data-testid="circle-link">${st.final_ritual ? 'Final table' : `Circle ${c.circle}`}</a>
            <span class="muted">${c.status}</span>
            ${mine(c) && c.status !== 'finished' && html`<a class="button small" href=${`/tables/${c.table_id}`}>Play</a>`}
            ${c.status === 'finished' && html`<a class="muted" href=${`/tables/${c.table_id}/replay`}>replay</a>`}</header>
          <ol class="names small">${c.players.map((p) => html`<li class=${`${c.last_lit.includes(p.name) ? 'lastlit' : ''}${c.winner === p.name ? ' won' : ''}`}>
            ${p.name}${p.replaced_by ? html` <span class="badge bot">substitute</span>` : ''}${p.dropped ? html` <span class="badge">dropped</span>` : ''}${p.class ? html` <${ClassBadge} id=${p.class} />` : ''}${p.placing ? html` <span class="muted">${ordinal(p.placing)}</span>` : ''}${p.points !== null && p.points !== undefined ? html` <span class="muted" data-testid="circle-points">${p.points} pt${p.points === 1 ? '' : 's'}</span>` : ''}</li>`)}</ol>
          ${c.waiting && html`<p class="muted small" data-testid="waiting">${c.waiting.window ? (exorcist ? 'the tie mini-game picks are open (X8.3)' : 'a reaction window is open') : `waiting on ${c.waiting.names.join(', ')}`}
            ${me && me.name === g.organiser && !c.waiting.window && html` <button type="button" class="linklike" data-testid="give-time"
              onClick=${async () => { try { await api('POST', `/gatherings/${id}/tables/${c.table_id}/time`, { body: { seconds: 60 } }); data.reload(); } catch (e) { alert(errorText(e)); } }}>+60 s</button>`}</p>`}
          ${c.last_lit.length > 0 && html`<p class="lastlit-line">${st.final_ritual ? 'Winner' : words.sentOn}: ${c.last_lit.join(', ')}</p>`}
          ${circleNote(c) && html`<p class="circle-note" data-testid="circle-note">${circleNote(c)}</p>`}
        </article>`)}
        ${(st.circle_count || 0) > st.circles.length && html`<p class="muted small" data-testid="more-circles">${(st.circle_count || 0) - st.circles.length} more circles
          ${limit < 1250 && html` <button type="button" class="linklike" onClick=${() => setLimit(1250)}>show all</button>`}</p>`}
      </section>`)}
      <section class="stage champion"><h3>Winner</h3>${b.winner ? html`<p class="trophy"><${Icon} name="trophy" size=${40} /><br /><strong>${b.winner}</strong></p>`
        : html`<p class="muted">${b.end_reason ? b.end_reason.replace(/_/g, ' ') : 'to be decided'}</p>`}</section>
    </div>
    <section><h3>Standings</h3><${StandingsTable} rows=${s} points=${exorcist} /></section>
  </main>`;
}
