// The viewer's JSON client. The server's key (when it has one) is kept in localStorage and sent
// as a Bearer token; a 401 asks for it.

const BASE = '/api/v1/web';
const KEY = 'threadbase.apiKey';

export class Unauthorized extends Error {}

// A key handed over in the URL (?key=…) is stored once and removed from the address bar.
(() => {
  const url = new URL(location.href);
  const key = url.searchParams.get('key');
  if (key) {
    localStorage.setItem(KEY, key);
    url.searchParams.delete('key');
    history.replaceState(null, '', url.toString());
  }
})();

export function setKey(key) {
  if (key) localStorage.setItem(KEY, key);
  else localStorage.removeItem(KEY);
}

/** Whether this browser holds a key to send (a 401 then means the server refused it). */
export function hasKey() {
  return localStorage.getItem(KEY) !== null;
}

function headers(extra) {
  const key = localStorage.getItem(KEY);
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

async function handle(res) {
  if (res.status === 401) throw new Unauthorized('this server wants a key');
  const body = await res.json().catch(() => ({}));
  // the answer kept on the error: a view shows what it holds beside the message (a prefix's candidates)
  if (!res.ok) throw Object.assign(new Error(body.message || body.error || `HTTP ${res.status}`), { status: res.status, body });
  return body;
}

export async function get(path, params) {
  return handle(await fetch(`${BASE}${path}${qs(params)}`, { headers: headers() }));
}

export async function post(path, body) {
  return handle(
    await fetch(`${BASE}${path}`, {
      method: 'POST',
      headers: headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    }),
  );
}
