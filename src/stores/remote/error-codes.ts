/**
 * The error codes of a team server's 4xx answers and its 503 staging_full (their `reason`), in one place for the server that
 * gives them, its OpenAPI document that lists them and RemoteError that takes them as its code.
 * A refusal by a store is its ThreadbaseError's own code (duplicate_entry, orphan_entry, unsupported,
 * unstorable_id, not_found), the same a local store throws; a refusal of the request itself has one of
 * the others.
 */

/** Every code a 4xx answer carries, each with what it says. */
export const HTTP_ERROR_CODES = {
  duplicate_entry: 'an entry id given twice, or one the session has with other content (409)',
  orphan_entry: 'an entry whose parent is in neither the session nor the request (409)',
  unstorable_id: 'an id or query holding a character no store keeps in one (NUL) (400)',
  bad_request: 'a request the server cannot take, no more precise code applying (400)',
  invalid_parameter: 'a query parameter out of its range or form, the message naming it (400)',
  invalid_json: 'a request body that is not JSON (400)',
  invalid_body: 'a JSON body not of the shape the route takes, the message naming the field (400)',
  unsupported: 'the served store cannot do what was asked (400)',
  unauthorized: 'no API key, or one the server does not know (401)',
  forbidden: 'a key without the right to this (403)',
  not_found: 'no such session or entry in this project (404)',
  no_route: 'no route at this path (404)',
  method_not_allowed: 'a known path asked with a method it does not answer; the Allow header lists those it does (405)',
  conflict: 'the request contradicts what is stored (409)',
  payload_too_large: "a body larger than the server's --max-body (413)",
  upload_incomplete:
    'a part of a replace in parts (push --force) whose earlier parts the server does not hold (expired, the server restarted, another server process took them): nothing replaced; send it again from part 1 (409)',
  staging_full:
    'the server holds as many bytes of replaces in parts as it takes: this upload dropped, nothing replaced; try again later (503, the one answer with a reason that is not a 4xx)',
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERROR_CODES;

/** The code of a 4xx status when nothing says more (an answer without `reason`, from an older server). */
export function httpErrorCodeOf(status: number): HttpErrorCode | undefined {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    default:
      return undefined;
  }
}
