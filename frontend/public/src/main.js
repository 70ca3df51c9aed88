// The app shell: navigation, settings (four-colour deck, animations) and the routes.
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { html, linkClick, setSession, useLocation, useSession, useStored } from './lib.js';
import { GatheringPage, HomePage, JoinPage, OrganiserPage, PracticePage, SignInPage } from './pages.js';
import { TablePage } from './table.js';
import { ReplayPage } from './replay.js';
import { RulesPage } from './rules.js';

/** @param {string} path @param {string} search */
function route(path, search) {
  let m;
  if (path === '/' || path === '') return html`<${HomePage} />`;
  if (path === '/signin') return html`<${SignInPage} search=${search} />`;
  if (path === '/practice') return html`<${PracticePage} />`;
  if (path === '/organiser') return html`<${OrganiserPage} />`;
  if (path === '/rules') return html`<${RulesPage} />`;
  if ((m = path.match(/^\/gatherings\/([^/]+)\/join\/?$/))) return html`<${JoinPage} id=${decodeURIComponent(m[1])} />`;
  if ((m = path.match(/^\/gatherings\/([^/]+)\/?$/))) return html`<${GatheringPage} id=${decodeURIComponent(m[1])} />`;
  if ((m = path.match(/^\/tables\/([^/]+)\/replay\/?$/))) return html`<${ReplayPage} id=${decodeURIComponent(m[1])} />`;
  if ((m = path.match(/^\/tables\/([^/]+)\/?$/))) return html`<${TablePage} id=${decodeURIComponent(m[1])} search=${search} />`;
  return html`<main class="page narrow"><h2>Not found</h2><p>No page at ${path}.</p><a href="/">Home</a></main>`;
}

function App() {
  const { path, search } = useLocation();
  const me = useSession();
  const [fourColour, setFourColour] = useStored('flicker.fourColour', false);
  const [motion, setMotion] = useStored('flicker.motion', true);
  useEffect(() => {
    document.body.classList.toggle('four-colour', fourColour);
    document.body.classList.toggle('no-motion', !motion);
  }, [fourColour, motion]);
  /** @param {string} p */
  const cur = (p) => (path === p || (p !== '/' && path.startsWith(p)) ? 'page' : undefined);
  return html`<div class="shell" onClick=${linkClick}>
    <a class="skip" href="#content">Skip to content</a>
    <nav class="top" aria-label="Main">
      <a class="brand" href="/"><span class="flame" aria-hidden="true"></span>Flicker</a>
      <a href="/" aria-current=${cur('/') && path === '/' ? 'page' : undefined}>Home</a>
      <a href="/practice" aria-current=${cur('/practice')}>Practice</a>
      <a href="/organiser" aria-current=${cur('/organiser')}>Organiser</a>
      <a href="/rules" aria-current=${cur('/rules')} data-testid="nav-rules">Rules</a>
      <span class="spacer"></span>
      <label class="toggle" title="Four-colour deck: ♠ black, ♥ red, ♣ green, ♦ blue"><input type="checkbox" checked=${fourColour}
        onChange=${(/** @type {any} */ e) => setFourColour(e.target.checked)} /> 4-colour</label>
      <label class="toggle" title="Short animations"><input type="checkbox" checked=${motion}
        onChange=${(/** @type {any} */ e) => setMotion(e.target.checked)} /> motion</label>
      ${me ? html`<span class="who" data-testid="me">${me.name}</span><button type="button" class="linklike" onClick=${() => setSession(null)}>Sign out</button>`
        : html`<a href=${`/signin?next=${encodeURIComponent(path + search)}`} aria-current=${cur('/signin')}>Sign in</a>`}
    </nav>
    <div id="content" tabindex="-1">${route(path, search)}</div>
    <footer><a href="/docs/">API docs</a> · <a href="/openapi.json">OpenAPI</a></footer>
  </div>`;
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
