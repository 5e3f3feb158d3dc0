// DOM helpers. Every string goes in as text (textContent or an attribute value), never as HTML:
// the page's Content-Security-Policy enforces Trusted Types, so an HTML sink would throw.

const SVG = 'http://www.w3.org/2000/svg';

/** An element with attributes and children; a string child becomes a text node. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** An SVG element with attributes. */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name === 'className') node.setAttribute('class', value);
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** The element of an id (the page's own markup). */
export const byId = (id) => document.getElementById(id);

/** Replaces the children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

const integer = new Intl.NumberFormat('en-US');
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** A count, grouped (12,345). */
export const count = (n) => (typeof n === 'number' && Number.isFinite(n) ? integer.format(n) : '–');

/** A rate, one decimal. */
export const rate = (n) => (typeof n === 'number' && Number.isFinite(n) ? decimal.format(n) : '–');

/** A duration in ms, short (850 ms, 12 s, 4 min, 2.5 h). */
export function duration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${decimal.format(ms / 1000)} s`;
  if (ms < 3_600_000) return `${decimal.format(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${decimal.format(ms / 3_600_000)} h`;
  return `${decimal.format(ms / 86_400_000)} d`;
}

/** The longest timed pause the API takes (ms): ten years. */
const PAUSE_MAX_MS = 315_360_000_000;

/**
 * A pause form's "for minutes" field as the API's forMs: undefined when empty (until resumed), null
 * when out of range, so the form can say so in minutes (the API's message would speak of ms).
 */
export function pauseForMs(minutes) {
  if (minutes === null || minutes === '') return undefined;
  const ms = Math.round(Number(minutes) * 60_000);
  return Number.isFinite(ms) && ms >= 1 && ms <= PAUSE_MAX_MS ? ms : null;
}

/** What a pause form says when its minutes are out of range. */
export const PAUSE_MINUTES_HINT = 'For minutes: more than 0 and at most 5,256,000 (ten years), or empty to pause until resumed.';

/** A clock time of a ms-since-epoch instant. */
export const clock = (ms) => new Date(ms).toLocaleTimeString();

/** A lane's or a tenant's pause in words: until when (or until resumed), then its reason; '' when not paused. */
export function pauseText(p) {
  if (!p.paused) return '';
  return [p.pausedUntil ? `until ${clock(p.pausedUntil)}` : 'until resumed', p.pauseReason].filter(Boolean).join(' · ');
}

/**
 * The head age an element shows, aged by the time since its frame came: head ages are marked with
 * data-age (ms, as the frame said) and data-seen (performance.now() when drawn), so the page can
 * keep them moving between frames (a quiet queue sends none).
 */
export const agedMs = (node, now) => Number(node.dataset.age) + now - Number(node.dataset.seen);
