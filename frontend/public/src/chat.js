// The table chat panel, for both games: the entries the viewer may read (live from the chat
// stream; a spectator's come behind the table's spectator delay), a line to speak from one's
// seat, and for the table's moderator a mute switch per seat (docs/rules-decisions.md, "Table
// chat").
import { api, ApiError, errorText, html, idempotencyKey, useData, useSession, useStream } from './lib.js';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * @typedef {import('../../types/api').components['schemas']['ChatEntry']} ChatEntry
 * @typedef {import('../../types/api').components['schemas']['ChatPage']} ChatPage
 * @typedef {import('../../types/api').components['schemas']['TableInfo']} TableInfo
 */

/** The longest message, in characters (the server's bound). */
const MAX_CHARS = 280;

/** @param {TableInfo} table @param {number} seat */
function seatLabel(table, seat) {
  const name = table.seats[seat];
  return name ? `${name} (seat ${seat + 1})` : `seat ${seat + 1}`;
}

/** One entry in words. @param {ChatEntry} e @param {TableInfo} table */
function line(e, table) {
  if (e.kind === 'said') return html`<span class="chat-who">${e.name} <small>seat ${e.seat + 1}</small></span> <span class="chat-text">${e.text}</span>`;
  const what = e.kind === 'muted' ? 'muted' : 'unmuted';
  return html`<em class="chat-note">${e.name} ${what} ${seatLabel(table, e.seat)}.</em>`;
}

/**
 * The table's chat. `seat`: the viewer's seat (`null`: a spectator).
 * @param {{ id: string, seat: number | null, table: TableInfo }} props
 */
export function ChatPanel({ id, seat, table }) {
  const me = useSession();
  const q = seat !== null ? `?seat=${seat}` : '';
  const page = useData(() => /** @type {Promise<ChatPage>} */ (api('GET', `/tables/${id}/chat${q}`, { anonymous: !me })), [id, seat, me && me.name]);
  const [entries, setEntries] = useState(/** @type {ChatEntry[]} */ ([]));
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState('');
  const list = useRef(/** @type {HTMLOListElement | null} */ (null));
  useEffect(() => setEntries([]), [id, seat]);
  const live = useStream(`/tables/${id}/chat/stream${q}`, (type, data) => {
    if (type !== 'chat') return;
    const e = /** @type {ChatEntry} */ (data);
    setEntries((es) => (es.some((x) => x.number === e.number) ? es : [...es, e].sort((a, b) => a.number - b.number)));
    if (e.kind !== 'said') page.reload();
  }, { token: !!me, deps: [seat, me && me.name] });
  // Entries the page read before the stream delivered them (or if the stream cannot open).
  const shown = [...entries];
  for (const e of (page.data && page.data.entries) || []) if (!shown.some((x) => x.number === e.number)) shown.push(e);
  shown.sort((a, b) => a.number - b.number);
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [shown.length]);

  const info = page.data;
  const speaksAs = info ? info.speaks_as : null;
  const mutedHere = seat !== null && info && info.muted.includes(seat);
  const length = [...text.trim()].length;
  // A message about an earlier send never stays for long.
  useEffect(() => {
    if (!err) return undefined;
    const t = setTimeout(() => setErr(''), 6000);
    return () => clearTimeout(t);
  }, [err]);
  /** Why the viewer's seat may not speak, if it holds one and may not. */
  const silent = seat === null || !info || speaksAs !== null ? ''
    : table.status === 'finished' ? 'The chat closed when the game ended.'
      : mutedHere ? 'The moderator muted you at this table.'
        : 'You are out of the game: you read the table as spectators do, and may not speak.';

  /** @param {Event} ev */
  async function say(ev) {
    ev.preventDefault();
    const message = text.trim();
    if (!message) return;
    setBusy(true);
    setErr('');
    try {
      const e = /** @type {ChatEntry} */ (await api('POST', `/tables/${id}/chat`, {
        body: { text: message, ...(seat !== null ? { seat } : {}) },
        headers: { 'Idempotency-Key': idempotencyKey() },
      }));
      setEntries((es) => (es.some((x) => x.number === e.number) ? es : [...es, e]));
      setText('');
    } catch (e) {
      if (e instanceof ApiError && /chat-too-fast$/.test(e.type)) setErr('Slow down: at most 5 messages in 10 seconds.');
      else setErr(errorText(e));
      if (e instanceof ApiError && /chat-(muted|closed|out-of-game)$/.test(e.type)) page.reload();
    } finally {
      setBusy(false);
    }
  }

  /** @param {number} s @param {boolean} muted */
  async function mute(s, muted) {
    setErr('');
    try {
      await api('POST', `/tables/${id}/chat/mutes`, { body: { seat: s, muted } });
    } catch (e) {
      setErr(errorText(e));
    } finally {
      page.reload();
    }
  }
  // The moderator mutes the others (an account holding several practice seats is one speaker).
  const mutable = table.seats.map((n, s) => (n && !table.bots[s] && !(me && n === me.name) ? s : -1)).filter((s) => s >= 0);

  return html`<section class="log chat" aria-label="Table chat" data-testid="chat">
    <h3>Chat <small class="muted">${seat !== null ? 'say anything: bluffs included' : 'the players\' table talk'}</small>
      ${live !== 'live' && html`<small class="muted"> · ${live}</small>`}</h3>
    <ol ref=${list} aria-live="polite" data-testid="chat-lines">${shown.length
      ? shown.map((e) => html`<li key=${e.number} data-testid="chat-entry" data-kind=${e.kind}>${line(e, table)}</li>`)
      : html`<li class="muted">No messages yet.</li>`}</ol>
    ${err && html`<p class="error" role="alert" data-testid="chat-error">${err}</p>`}
    ${speaksAs !== null && speaksAs !== undefined && html`<form class="chat-say" onSubmit=${say}>
      <input name="chat" aria-label="Message" placeholder="Say something…" value=${text} autocomplete="off"
        data-testid="chat-input" onInput=${(/** @type {any} */ e) => setText(e.target.value)} />
      <button type="submit" disabled=${busy || length === 0 || length > MAX_CHARS} data-testid="chat-send">Send</button></form>
      ${length > MAX_CHARS - 40 && html`<small class=${length > MAX_CHARS ? 'error' : 'muted'} data-testid="chat-count">${length}/${MAX_CHARS} characters</small>`}`}
    ${silent && html`<p class="hint" data-testid=${mutedHere ? 'chat-muted' : 'chat-silent'}>${silent}</p>`}
    ${info && info.moderator && table.status !== 'finished' && mutable.length > 0 && html`<details class="chat-moderate" data-testid="chat-moderate"><summary>Moderate</summary>
      ${mutable.map((s) => html`<button type="button" class="secondary" data-testid=${`mute-${s}`}
        data-muted=${String(info.muted.includes(s))} onClick=${() => mute(s, !info.muted.includes(s))}>${info.muted.includes(s) ? 'Unmute' : 'Mute'} ${seatLabel(table, s)}</button>`)}
    </details>`}
  </section>`;
}
