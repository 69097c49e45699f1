/**
 * A team server's address as threadbase reads it: its root and the API key a request to it sends
 * (openStore, RemoteStore and `push` take both the same way).
 */

/** The server's root: the URL without credentials, trailing slashes or its API path (…/api/v1, …/api/v1/threadbase). */
export function serverRoot(url: string): string {
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
