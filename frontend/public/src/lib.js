// Shared plumbing: the `html` template tag, the router, the API client (tokens, refresh,
// problem documents), server-sent event streams and small hooks.
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { EXORCIST_EVENT_TYPES, GATHERING_EVENT_TYPES, VIEW_EVENT_TYPES } from './stream-events.gen.js';

/** @type {(strings: TemplateStringsArray, ...values: any[]) => import('preact').VNode<any>} */
export const html = /** @type {any} */ (htm.bind(h));

export const API = '/api/v1';

// ---------------------------------------------------------------- router

/** @type {Set<() => void>} */
const routeListeners = new Set();

/**
 * Navigates inside the app without reloading the page; a `#fragment` scrolls to its element
 * once the new page has rendered. @param {string} to
 */
export function navigate(to) {
  if (to === location.pathname + location.search + location.hash) return;
  history.pushState(null, '', to);
  routeListeners.forEach((f) => f());
  const hash = to.includes('#') ? decodeURIComponent(to.slice(to.indexOf('#') + 1)) : '';
  if (hash) window.setTimeout(() => document.getElementById(hash)?.scrollIntoView(), 0);
  else window.scrollTo(0, 0);
}
window.addEventListener('popstate', () => routeListeners.forEach((f) => f()));

/** The current location, re-rendering on navigation. */
export function useLocation() {
  const [loc, setLoc] = useState({ path: location.pathname, search: location.search });
  useEffect(() => {
    const f = () => setLoc({ path: location.pathname, search: location.search });
    routeListeners.add(f);
    return () => { routeListeners.delete(f); };
  }, []);
  return loc;
}

/** Intercepts clicks on same-origin links so they route in the page. @param {MouseEvent} e */
export function linkClick(e) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = /** @type {HTMLElement} */ (e.target).closest('a');
  if (!a || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api') || url.pathname.startsWith('/docs')) return;
  e.preventDefault();
  navigate(url.pathname + url.search + url.hash);
}

// ---------------------------------------------------------------- auth

/**
 * @typedef {{ name: string, role: string, access_token: string, refresh_token: string, expires_at: number }} Session
 */
const SESSION_KEY = 'flicker.session';
/** @type {Set<() => void>} */
const sessionListeners = new Set();

/** @returns {Session | null} */
export function session() {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY) || 'null');
  } catch {
    return null;
  }
}

/** @param {Session | null} s */
export function setSession(s) {
  if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else localStorage.removeItem(SESSION_KEY);
  sessionListeners.forEach((f) => f());
}

/** The signed-in account (or null), re-rendering on sign in and out. */
export function useSession() {
  const [s, set] = useState(session());
  useEffect(() => {
    const f = () => set(session());
    sessionListeners.add(f);
    return () => { sessionListeners.delete(f); };
  }, []);
  return s;
}

/** An RFC 9457 problem from the API, or a network failure. */
export class ApiError extends Error {
  /** @param {number} status @param {any} problem */
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    /** @type {string} */
    this.type = (problem && problem.type) || '';
  }
}

/** @param {any} pair @param {string} name @param {string} role @returns {Session} */
function toSession(pair, name, role) {
  return {
    name,
    role,
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    expires_at: Date.now() + (pair.expires_in || 900) * 1000,
  };
}

/** @type {Promise<boolean> | null} */
let refreshing = null;

/** Trades the refresh token for a new pair (once at a time). */
async function refresh() {
  const s = session();
  if (!s) return false;
  refreshing ??= (async () => {
    try {
      const res = await fetch(`${API}/auth/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: s.refresh_token }),
      });
      if (!res.ok) {
        setSession(null);
        return false;
      }
      setSession(toSession(await res.json(), s.name, s.role));
      return true;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** A fresh access token, refreshing it shortly before it lapses. */
export async function accessToken() {
  const s = session();
  if (!s) return null;
  if (s.expires_at - Date.now() < 60_000) await refresh();
  return session()?.access_token ?? null;
}

/**
 * The latest read-your-writes token the API answered (`Flicker-Position`, on PostgreSQL), sent
 * back with each call so that any server process behind a load balancer answers as of at
 * least what this page was shown.
 * @type {string | null}
 */
let position = null;

/**
 * Calls the API. Bodies are JSON (`body`) or CSV text (`csv`); errors are thrown as {@link ApiError}.
 * @param {string} method
 * @param {string} path under /api/v1
 * @param {{ body?: any, csv?: string, headers?: Record<string, string>, anonymous?: boolean }} [opts]
 * @returns {Promise<any>}
 */
export async function api(method, path, opts = {}) {
  for (let attempt = 0; attempt < 2; attempt++) {
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json', ...(opts.headers || {}) };
    const token = opts.anonymous ? null : await accessToken();
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.csv !== undefined) headers['content-type'] = 'text/csv; charset=utf-8';
    if (position) headers['flicker-position'] = position;
    const res = await fetch(API + path, {
      method,
      headers,
      body: opts.csv !== undefined ? opts.csv : opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    position = res.headers.get('flicker-position') ?? position;
    if (res.status === 401 && token && attempt === 0 && (await refresh())) continue;
    const text = await res.text();
    /** @type {any} */
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = { detail: text };
    }
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }
  throw new ApiError(401, { detail: 'signed out' });
}

/** Keeps a token pair the API answered (an invitation's claim) as the session. @param {any} pair @param {string} name @param {string} role */
export function adoptSession(pair, name, role) {
  setSession(toSession(pair, name, role));
}

/** Signs in and keeps the session. @param {string} name @param {string} password */
export async function signIn(name, password) {
  const pair = await api('POST', '/auth/token', { body: { name, password }, anonymous: true });
  // The role is in the access token's claims.
  let role = 'player';
  try {
    const claims = JSON.parse(atob(pair.access_token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    role = claims.role || role;
  } catch {
    /* keep the default */
  }
  setSession(toSession(pair, name, role));
}

/**
 * Creates an account, then signs in.
 * @param {string} name @param {string} password @param {string} role @param {string} [organiserKey]
 */
export async function signUp(name, password, role, organiserKey) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (role === 'organiser' && organiserKey) headers['X-Organiser-Key'] = organiserKey;
  await api('POST', '/accounts', { body: { name, password, role }, headers, anonymous: true });
  await signIn(name, password);
}

/** A unique idempotency key. */
export function idempotencyKey() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

// ---------------------------------------------------------------- streams

/**
 * The `event:` names of table and gathering streams, from the schema (`ViewEvent`,
 * `GatheringEvent`: see stream-events.gen.js), and `finished`, which closes a table's stream.
 */
export const STREAM_TYPES = /** @type {readonly string[]} */ ([...new Set([...VIEW_EVENT_TYPES, ...EXORCIST_EVENT_TYPES, ...GATHERING_EVENT_TYPES])]);

/**
 * Adds a listener to `source` for every stream event name (EventSource drops a named event
 * that has no listener): `deliver(type, message)` for each one, for a table chat stream's
 * entries (`chat`), and for unnamed messages (`message`). Returns the names listened for.
 * @param {Pick<EventSource, 'addEventListener'>} source
 * @param {(type: string, m: MessageEvent) => void} deliver
 */
export function listenToStream(source, deliver) {
  const names = [...STREAM_TYPES, 'chat', 'message'];
  for (const t of names) source.addEventListener(t, (m) => deliver(t, /** @type {MessageEvent} */ (m)));
  return names;
}

/**
 * Follows a server-sent event stream while mounted. `onEvent(type, data, id)` gets every
 * message; the browser reconnects on its own (sending Last-Event-ID). A `finished` message
 * closes the stream.
 * @param {string | null} url path under /api/v1, or null for none
 * @param {(type: string, data: any, id: string) => void} onEvent
 * @param {{ token?: boolean, deps?: any[] }} [opts]
 */
export function useStream(url, onEvent, opts = {}) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [state, setState] = useState(/** @type {'connecting' | 'live' | 'closed' | 'error'} */ ('connecting'));
  useEffect(() => {
    if (!url) return;
    let closed = false;
    /** @type {EventSource | null} */
    let es = null;
    /** @type {number | undefined} */
    let retry;
    /** @param {string} type @param {MessageEvent} m */
    const deliver = (type, m) => {
      /** @type {any} */
      let data = m.data;
      try {
        data = JSON.parse(m.data);
      } catch {
        /* plain text */
      }
      handler.current(type, data, m.lastEventId);
    };
    const connect = async () => {
      let full = API + url;
      if (opts.token) {
        const t = await accessToken();
        if (t) full += (full.includes('?') ? '&' : '?') + 'access_token=' + encodeURIComponent(t);
      }
      if (closed) return;
      const source = new EventSource(full);
      es = source;
      source.onopen = () => setState('live');
      source.onerror = () => {
        // The browser retries a dropped connection itself (with Last-Event-ID). A refused one
        // (an expired token in the URL) is closed: open a new one with a fresh token.
        if (source.readyState === EventSource.CLOSED && !closed) {
          setState('error');
          retry = window.setTimeout(connect, 2000);
        } else setState('connecting');
      };
      listenToStream(source, deliver);
      source.addEventListener('finished', (m) => {
        deliver('finished', /** @type {MessageEvent} */ (m));
        closed = true;
        source.close();
        setState('closed');
      });
    };
    connect();
    return () => {
      closed = true;
      window.clearTimeout(retry);
      es?.close();
    };
    // eslint-disable-next-line
  }, [url, ...(opts.deps || [])]);
  return state;
}

// ---------------------------------------------------------------- hooks

/**
 * Loads data with `load()` and reloads it on `reload()` (coalescing bursts) or when deps change.
 * @template T
 * @param {() => Promise<T>} load
 * @param {any[]} deps
 */
export function useData(load, deps) {
  const [data, setData] = useState(/** @type {T | null} */ (null));
  const [error, setError] = useState(/** @type {ApiError | Error | null} */ (null));
  const seq = useRef(0);
  const timer = useRef(/** @type {number | undefined} */ (undefined));
  const loadRef = useRef(load);
  loadRef.current = load;
  const run = async () => {
    const mine = ++seq.current;
    try {
      const d = await loadRef.current();
      if (mine === seq.current) {
        setData(d);
        setError(null);
      }
    } catch (e) {
      if (mine === seq.current) setError(/** @type {Error} */ (e));
    }
  };
  useEffect(() => {
    setData(null);
    run();
    // eslint-disable-next-line
  }, deps);
  /** Reloads soon, once for a burst of calls. */
  const reload = () => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      run();
    }, 120);
  };
  return { data, error, reload, setData };
}

/** The current time, ticking every `ms`. @param {number} ms */
export function useNow(ms = 250) {
  const [now, set] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => set(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** Remembers a value in localStorage. @template T @param {string} key @param {T} initial */
export function useStored(key, initial) {
  const [v, set] = useState(/** @type {T} */ (() => {
    try {
      const s = localStorage.getItem(key);
      return s === null ? initial : JSON.parse(s);
    } catch {
      return initial;
    }
  }));
  /** @param {T} next */
  const save = (next) => {
    localStorage.setItem(key, JSON.stringify(next));
    set(next);
  };
  return /** @type {[T, (v: T) => void]} */ ([v, save]);
}

/** Practice tables this browser created or joined (the API has no table list). */
export const MY_TABLES = 'flicker.tables';

/** @param {string} id @param {string} label */
export function rememberTable(id, label) {
  /** @type {{id: string, label: string, at: number}[]} */
  let list = [];
  try {
    list = JSON.parse(localStorage.getItem(MY_TABLES) || '[]');
  } catch {
    /* start over */
  }
  list = [{ id, label, at: Date.now() }, ...list.filter((t) => t.id !== id)].slice(0, 20);
  localStorage.setItem(MY_TABLES, JSON.stringify(list));
}

/** A message for an error. @param {any} e */
export function errorText(e) {
  if (!e) return '';
  if (e instanceof ApiError) return e.message + (e.type ? ` (${e.type.replace(/^.*\//, '')})` : '');
  return String(e.message || e);
}
