// The page's calls to its own API. The page's own query string goes along with every call (so a
// guard may check a token in the page's URL), and every change carries the action header.

const base = new URL('api/', document.baseURI);
const pageParams = new URLSearchParams(location.search);

/** The URL of an API path with `params` and the page's own query parameters. */
export function apiUrl(path, params = {}) {
  const url = new URL(path, base);
  for (const [k, v] of pageParams) url.searchParams.set(k, v);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  return url;
}

/** An API error, with the server's message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function answer(res) {
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const m = body && body.message;
    throw new ApiError(res.status, Array.isArray(m) ? m.join('; ') : typeof m === 'string' ? m : `${res.status} ${res.statusText}`);
  }
  return body;
}

/** GET a JSON answer. */
export async function get(path, params) {
  return answer(await fetch(apiUrl(path, params), { headers: { accept: 'application/json' }, credentials: 'same-origin' }));
}

/** POST a change; `header` is the action header the server asked for. */
export async function post(path, body, header) {
  return answer(await fetch(apiUrl(path), {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', [header]: '1' },
    body: JSON.stringify(body),
  }));
}

/** Opens the live stream of a queue; `onFrame` gets each frame, `onState` 'on' or 'off'. */
export function stream(queue, onFrame, onState) {
  const source = new EventSource(apiUrl('stream', { queue }));
  source.addEventListener('frame', (e) => onFrame(JSON.parse(e.data)));
  source.addEventListener('open', () => onState('on'));
  source.addEventListener('error', () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'off'));
  return source;
}
