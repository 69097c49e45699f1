/** The OpenAPI 3.1 description of the server's routes (served at GET /openapi.json). */
import { z } from 'zod';
import { contextFormatNames } from '../convert/formats.js';
import { HTTP_ERROR_CODES } from '../stores/remote/error-codes.js';
import {
  AppendBody,
  BranchBody,
  ConnectToSpaceBody,
  CreateSessionBody,
  ForkBody,
  PutSessionBody,
  StoreMessageBody,
  UpdateConfigsBody,
} from './bodies.js';

type Op = {
  summary: string;
  params?: string[];
  body?: string;
  /** the schema the route checks its body with */
  schema?: z.ZodType;
  tag: string;
  /** what a success answers: 201 for a creation, both when PUT may create or update */
  success?: ('200' | '201')[];
  /** 409: entry ids repeated in the body, an id the session has with other content, or an entry whose parent is in neither the session nor the body */
  conflict?: boolean;
  /** the query `format` values this route accepts */
  formats?: string[];
  /** a success that is Markdown text for format=markdown instead of the JSON envelope */
  markdown?: boolean;
  /** what the envelope's data holds, where the summary does not say */
  data?: string;
  /** answers beside the usual ones, by status, each with what it means */
  errors?: Record<string, string>;
};

const ROUTES: Record<string, Record<string, Op>> = {
  '/api/v1/ping': {
    get: { tag: 'acontext', summary: 'Checks the key: data "pong"; header X-Threadbase-Store: the served store\'s identity' },
  },
  '/api/v1/session': {
    get: { tag: 'acontext', summary: 'List sessions', params: ['limit', 'cursor', 'time_desc', 'space_id', 'not_connected'] },
    post: {
      tag: 'acontext',
      summary: 'Create a session',
      body: '{space_id?, disable_task_tracking?, configs?}',
      schema: CreateSessionBody,
      success: ['201'],
    },
  },
  '/api/v1/session/{id}': { delete: { tag: 'acontext', summary: 'Delete a session' } },
  '/api/v1/session/{id}/messages': {
    post: {
      tag: 'acontext',
      summary: 'Store one message',
      body: '{blob, format: "anthropic"|"openai", meta?}',
      schema: StoreMessageBody,
      success: ['201'],
    },
    get: {
      tag: 'acontext',
      summary: 'Messages as OpenAI or Anthropic messages: {items, ids, next_cursor, has_more}',
      params: ['format', 'limit', 'cursor', 'time_desc'],
      formats: ['openai', 'anthropic', 'acontext'],
    },
  },
  '/api/v1/session/{id}/token_counts': { get: { tag: 'acontext', summary: 'Estimated tokens: {total_tokens}' } },
  '/api/v1/session/{id}/configs': {
    get: { tag: 'acontext', summary: 'The session with its configs' },
    put: {
      tag: 'acontext',
      summary: "Replace the session's configs (kept as a metadata entry of the session); data: the session",
      body: '{configs}',
      schema: UpdateConfigsBody,
    },
  },
  '/api/v1/session/{id}/connect_to_space': {
    post: {
      tag: 'acontext',
      summary: 'Connect the session to a space (recorded; listed by space_id); data: the session',
      body: '{space_id}',
      schema: ConnectToSpaceBody,
    },
  },
  '/api/v1/session/{id}/task': {
    get: {
      tag: 'acontext',
      summary: 'Tasks: always {items: [], next_cursor: null, has_more: false} (no task extraction here)',
      params: ['limit', 'cursor', 'time_desc'],
    },
  },
  '/api/v1/session/{id}/flush': {
    post: { tag: 'acontext', summary: 'Nothing is buffered: a no-op, data {status: 0, errmsg: ""}' },
  },
  '/api/v1/session/{id}/get_learning_status': {
    get: { tag: 'acontext', summary: 'Nothing learns into spaces here: {space_digested_count: 0, not_space_digested_count: 0}' },
  },
  '/api/v1/threadbase/sessions': {
    get: {
      tag: 'threadbase',
      summary: 'Sessions with filters, newest first: {sessions, next_cursor} (a page of limit; cursor goes on)',
      params: ['source', 'project', 'since', 'until', 'tz', 'text', 'parent', 'limit', 'cursor'],
    },
  },
  '/api/v1/threadbase/sessions/{id}': {
    get: { tag: 'threadbase', summary: 'The whole session, entries included' },
    put: {
      tag: 'threadbase',
      summary:
        'Create with this id (201) or add missing entries (200; one whose parent the session lacks, as a root; one it has ' +
        'as stored skipped, one whose id it has with other content a 409 duplicate_entry): idempotent push, answers {id, created, added}; ' +
        'replace=true (push --force): a session the project has is swapped whole for the body in one step (200, added: the entries of the body); ' +
        'one it does not have is a 404 not_found, not made. A session larger than one request is replaced in parts instead ' +
        '(PUT /api/v1/threadbase/sessions/{id}/replace/{upload}/{part})',
      params: ['replace'],
      body: '{session, entries}',
      schema: PutSessionBody,
      success: ['200', '201'],
      conflict: true,
    },
    delete: { tag: 'threadbase', summary: 'Delete the session' },
  },
  '/api/v1/threadbase/sessions/{id}/replace/{upload}/{part}': {
    put: {
      tag: 'threadbase',
      summary:
        'A replace in parts (push --force of a session larger than one request): upload is an id the client picks for ' +
        'this replace, part counts 1, 2, … Each part is held by the server (out of the store: no read, list or search sees ' +
        'it) and answered {id, upload, part, staged: true}; the part sent with last=true swaps the session for its ' +
        "body's header and the entries of parts 1 to it, in order, in one step of the store, answered as PUT " +
        '?replace=true answers ({id, created: false, added}). A part sent again replaces the one held. Until then, and ' +
        'whatever fails, the stored session is as it was. Parts are held by the server process that got them ' +
        "(behind a balancer, one upload's requests must reach one process), 15 minutes after the upload's last part, " +
        'within a bound on the bytes all uploads hold',
      params: ['last'],
      body: "{session, entries}: the session's header (the last part's is kept) and this part's entries",
      schema: PutSessionBody,
      conflict: true,
      errors: {
        '404': 'part 1 (or the last) for a session the project does not have: not_found, nothing held or made',
        '409':
          'upload_incomplete: parts before this one are not held (expired, the server restarted, another process got them; ' +
          'the upload is dropped: send it again from part 1); at the last part, entry ids repeated (duplicate_entry)',
        '503': 'staging_full: the bytes held by every upload would pass the bound; this upload dropped, nothing replaced',
      },
    },
  },
  '/api/v1/threadbase/sessions/{id}/replace/{upload}': {
    delete: {
      tag: 'threadbase',
      summary: 'Drops an upload of a replace in parts (a push given up); the session is untouched: {id, upload, dropped}',
    },
  },
  '/api/v1/threadbase/sessions/{id}/entries': {
    post: {
      tag: 'threadbase',
      summary:
        'Append entries (one the session has as stored is skipped; one whose id it has with other content is a 409): {added}',
      body: '{entries}',
      schema: AppendBody,
      success: ['201'],
      conflict: true,
    },
  },
  '/api/v1/threadbase/sessions/{id}/context': {
    get: {
      tag: 'threadbase',
      summary: 'The context at the leaf in a wire format: {format, context}',
      params: ['format', 'leaf'],
      formats: contextFormatNames(),
    },
  },
  '/api/v1/threadbase/sessions/{id}/export': {
    get: {
      tag: 'threadbase',
      summary: 'The session as JSON (the envelope) or Markdown (text/markdown)',
      params: ['format'],
      formats: ['json', 'markdown'],
      markdown: true,
    },
  },
  '/api/v1/threadbase/sessions/{id}/fork': {
    post: { tag: 'threadbase', summary: 'Fork at an entry', body: '{at?, title?}', schema: ForkBody, success: ['201'] },
  },
  '/api/v1/threadbase/sessions/{id}/branch': {
    post: {
      tag: 'threadbase',
      summary: 'Add a message under an earlier entry',
      body: '{at, blob, format: "anthropic"|"openai"}',
      schema: BranchBody,
      success: ['201'],
    },
  },
  '/api/v1/threadbase/search': {
    get: {
      tag: 'threadbase',
      summary: 'Full-text search',
      params: ['q', 'role', 'tool', 'source', 'project', 'since', 'until', 'tz', 'limit'],
    },
  },
  '/api/v1/threadbase/stats': {
    get: {
      tag: 'threadbase',
      summary: 'Session count, token usage and cost',
      params: ['source', 'project', 'since', 'until', 'tz'],
      data:
        '{sessions, usage: {input, output, cacheRead, cacheWrite, reasoning, cost (as the agents recorded it), messages}, ' +
        'cost (recorded plus estimatedCost, as local `threadbase stats` counts it), estimatedCost (responses with no ' +
        "recorded cost, priced from their tokens with the server's price table), unpricedModels (models with such " +
        'tokens and no price: left out of cost)}. since/until select responses by their time, as local ' +
        '`threadbase stats --since/--until` does: a session crossing an edge counts only its responses inside; ' +
        "sessions counts those whose time meets the window; a fork's copy of its parent's responses counts once",
    },
  },
};

/** Query parameters' types as the routes check them (a value of another type is a 400). */
const ISO_TIME = {
  type: 'string',
  description:
    'ISO date or time (a date alone: its whole day for until), e.g. 2026-11-25; without an offset read in tz; ' +
    'a since after the until is a 400',
};
const PARAM_SCHEMAS: Record<string, Record<string, unknown>> = {
  limit: { type: 'integer', minimum: 1 },
  time_desc: { type: 'boolean' },
  not_connected: { type: 'boolean' },
  replace: {
    type: 'boolean',
    description:
      "true: the stored session's header and entries are replaced by the body's, in one step (a failed write leaves it as it was), instead of the entries added by the append rule",
  },
  since: ISO_TIME,
  until: ISO_TIME,
  tz: { type: 'string', description: 'IANA time zone of since/until dates and times without an offset (default UTC)' },
  role: { type: 'string', enum: ['user', 'assistant', 'tool', 'system'] },
  last: {
    type: 'boolean',
    description: 'true: the last part of the upload; the session is swapped for the parts held and this one',
  },
};

/** Path parameters' types, `id` and the others the path names. */
const PATH_SCHEMAS: Record<string, Record<string, unknown>> = {
  upload: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' },
  part: { type: 'integer', minimum: 1, maximum: 100_000 },
};

const ERROR_BODY = {
  'application/json': { schema: { $ref: '#/components/schemas/Error' } },
};

/** A body schema as JSON Schema (2020-12, which OpenAPI 3.1 uses), as a client sends it. */
function bodySchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _s, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}

/**
 * Routes the app serves that this document leaves out, each with why (hono's path syntax). The web
 * viewer's JSON (/api/v1/web) is internal to the viewer: its shapes change with its pages, so no
 * client should build on it; the document itself and the viewer's page and assets are not API.
 */
export const INTERNAL_ROUTES: readonly { path: string; why: string }[] = [
  { path: '/openapi.json', why: 'this document' },
  { path: '/api/v1/openapi.json', why: 'this document' },
  { path: '/', why: "the web viewer's page" },
  { path: '/ui', why: "the web viewer's page" },
  { path: '/ui/', why: "the web viewer's page" },
  { path: '/favicon.ico', why: "the web viewer's icon" },
  { path: '/ui/assets/:name', why: "the web viewer's scripts and styles" },
  { path: '/api/v1/web/*', why: "the web viewer's JSON, internal to the viewer" },
];

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [path, ops] of Object.entries(ROUTES)) {
    const item: Record<string, unknown> = {};
    for (const [method, op] of Object.entries(ops)) {
      const parameters = [
        ...[...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => ({
          name,
          in: 'path',
          required: true,
          schema: PATH_SCHEMAS[name] ?? { type: 'string' },
        })),
        ...(op.params ?? []).map((name) => ({
          name,
          in: 'query',
          required: name === 'q',
          schema:
            name === 'format' && op.formats ? { type: 'string', enum: op.formats } : (PARAM_SCHEMAS[name] ?? { type: 'string' }),
        })),
      ];
      item[method] = {
        tags: [op.tag],
        summary: op.summary,
        parameters,
        ...(op.body
          ? {
              requestBody: {
                // an empty body is read as {}: required only when {} is refused
                required: op.schema ? !op.schema.safeParse({}).success : true,
                description: op.body,
                content: { 'application/json': { schema: op.schema ? bodySchema(op.schema) : { type: 'object' } } },
              },
            }
          : {}),
        responses: {
          ...Object.fromEntries(
            (op.success ?? ['200']).map((code) => [
              code,
              {
                description: `${code === '201' ? 'Created: e' : 'E'}nvelope {code: 0, data, msg: "ok"}${op.data ? `; data: ${op.data}` : ''}`,
                content: {
                  'application/json': { schema: { $ref: '#/components/schemas/Envelope' } },
                  ...(op.markdown ? { 'text/markdown': { schema: { type: 'string' } } } : {}),
                },
              },
            ]),
          ),
          '400': { description: 'Invalid request (the message names the field or parameter)', content: ERROR_BODY },
          '401': { description: 'Missing or wrong API key', content: ERROR_BODY },
          '404': { description: 'No such session (or entry) in this project', content: ERROR_BODY },
          ...(op.conflict
            ? {
                '409': {
                  description: 'Entry ids repeated, an id stored with other content, or a parent not there',
                  content: ERROR_BODY,
                },
              }
            : {}),
          '413': { description: 'Body too large', content: ERROR_BODY },
          ...Object.fromEntries(
            Object.entries(op.errors ?? {}).map(([status, description]) => [status, { description, content: ERROR_BODY }]),
          ),
        },
      };
    }
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'threadbase server',
      version: '1',
      description:
        'Acontext-compatible session API plus threadbase routes. A known path asked with a method it does not ' +
        "answer is a 405 whose Allow header lists the methods it does. Not described here: the web viewer's " +
        'JSON under /api/v1/web/ (internal to the viewer: its shapes follow its pages and may change), the ' +
        "viewer's page and assets, and this document.",
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Envelope: {
          type: 'object',
          properties: { code: { type: 'integer' }, data: {}, msg: { type: 'string' } },
          required: ['code', 'msg'],
        },
        Error: {
          type: 'object',
          properties: {
            code: { type: 'integer' },
            msg: { type: 'string' },
            error: { type: 'string' },
            reason: {
              type: 'string',
              enum: Object.keys(HTTP_ERROR_CODES),
              description: `threadbase's error code, on every 4xx answer and a 503 staging_full (none on a 500): ${Object.entries(
                HTTP_ERROR_CODES,
              )
                .map(([code, what]) => `${code}: ${what}`)
                .join('; ')}`,
            },
          },
          required: ['code', 'msg', 'error'],
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
