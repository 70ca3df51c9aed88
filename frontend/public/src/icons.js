// Small inline SVG icons (no icon font, no emoji: they look the same everywhere).
import { html } from './lib.js';

/** @type {Record<string, string>} */
const PATHS = {
  first: 'M6 5h2v14H6zM20 5v14L9 12z',
  back: 'M15.4 5 17 6.6 11.6 12l5.4 5.4-1.6 1.6-7-7z',
  play: 'M7 5v14l11-7z',
  pause: 'M6 5h4v14H6zm8 0h4v14h-4z',
  forward: 'M8.6 5 7 6.6 12.4 12 7 17.4 8.6 19l7-7z',
  last: 'M16 5h2v14h-2zM4 5v14l11-7z',
  clock: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 2a8 8 0 1 1 0 16 8 8 0 0 1 0-16zm-1 3v6l5 3 1-1.7-4-2.3V7z',
  trophy: 'M7 3h10v2h3v3a4 4 0 0 1-4 4h-.3A5 5 0 0 1 13 14.9V17h3v3H8v-3h3v-2.1A5 5 0 0 1 8.3 12H8a4 4 0 0 1-4-4V5h3zm0 4H6v1a2 2 0 0 0 1.2 1.8zm10 0v2.8A2 2 0 0 0 18 8V7z',
  ghost: 'M12 2a7 7 0 0 0-7 7v12l2.5-2 2.3 2 2.2-2 2.2 2 2.3-2 2.5 2V9a7 7 0 0 0-7-7zm-2.5 6a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3zm5 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3z',
  bot: 'M11 2h2v3h4a3 3 0 0 1 3 3v9a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V8a3 3 0 0 1 3-3h4zm-2 8a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm6 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm-6 5v1.5h6V15z',
};

/** @param {{ name: string, label?: string, size?: number }} props */
export function Icon({ name, label, size = 18 }) {
  return html`<svg class=${`icon icon-${name}`} width=${size} height=${size} viewBox="0 0 24 24" fill="currentColor"
    role=${label ? 'img' : undefined} aria-label=${label} aria-hidden=${label ? undefined : 'true'} focusable="false"><path d=${PATHS[name]} /></svg>`;
}
