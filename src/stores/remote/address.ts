/**
 * A team server's address as threadbase reads it: its root and the API key a request to it sends
 * (openStore, RemoteStore and `push` take both the same way).
 */
import { ThreadbaseError } from '../../model/errors.js';

/**
 * Whether `url` names a team server: `http://` or `https://`, the scheme as written (lower case, as
 * storeKindOf matches every scheme), then a host. The one rule of `push --to`, `--from`/`--store`
 * (storeKindOf 'remote') and serverRoot: `HTTP://host` passed push's check and not the store options'.
 */
export function isServerUrl(url: string): boolean {
  if (!/^https?:\/\//.test(url)) return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The server's root: the URL without credentials, trailing slashes or its API path (…/api/v1, …/api/v1/threadbase).
 * A URL isServerUrl refuses is refused here, without repeating it (it may hold a key).
 */
export function serverRoot(url: string): string {
  if (!isServerUrl(url)) throw new ThreadbaseError('bad_url', "not a server's URL: expected http(s)://host[:port]");
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/api\/v1(\/threadbase)?$/, '')}`;
}

/** The key in the URL (`https://KEY@host`), if any; none for a URL that does not parse (opening it says so). */
export function urlKeyOf(url: string): string | undefined {
  let user = '';
  try {
    user = new URL(url).username;
  } catch {
    return undefined;
  }
  return user ? decodeURIComponent(user) : undefined;
}

/** The key a request to the server at `url` sends: the URL's, over $THREADBASE_API_KEY, the default for a URL without one. */
export function serverKeyOf(url: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  return urlKeyOf(url) ?? env.THREADBASE_API_KEY;
}
