/** The OpenAPI 3.1 description of the server's routes (served at GET /openapi.json). */

type Op = { summary: string; params?: string[]; body?: string; tag: string };

const ROUTES: Record<string, Record<string, Op>> = {
  '/api/v1/session': {
    get: { tag: 'acontext', summary: 'List sessions', params: ['limit', 'cursor', 'time_desc', 'space_id', 'not_connected'] },
    post: { tag: 'acontext', summary: 'Create a session', body: '{space_id?, disable_task_tracking?, configs?}' },
  },
  '/api/v1/session/{id}': { delete: { tag: 'acontext', summary: 'Delete a session' } },
  '/api/v1/session/{id}/messages': {
    post: { tag: 'acontext', summary: 'Store one message', body: '{blob, format: "anthropic"|"openai", meta?}' },
    get: {
      tag: 'acontext',
      summary: 'Messages as OpenAI or Anthropic messages: {items, ids, next_cursor, has_more}',
      params: ['format', 'limit', 'cursor', 'time_desc'],
    },
  },
  '/api/v1/session/{id}/token_counts': { get: { tag: 'acontext', summary: 'Estimated tokens: {total_tokens}' } },
  '/api/v1/session/{id}/configs': { get: { tag: 'acontext', summary: 'The session with its configs' } },
  '/api/v1/threadbase/sessions': {
    get: {
      tag: 'threadbase',
      summary: 'Sessions with filters',
      params: ['source', 'project', 'since', 'until', 'text', 'parent', 'limit'],
    },
  },
  '/api/v1/threadbase/sessions/{id}': {
    get: { tag: 'threadbase', summary: 'The whole session, entries included' },
    put: {
      tag: 'threadbase',
      summary: 'Create with this id or add missing entries (idempotent push)',
      body: '{session, entries}',
    },
    delete: { tag: 'threadbase', summary: 'Delete the session' },
  },
  '/api/v1/threadbase/sessions/{id}/entries': {
    post: { tag: 'threadbase', summary: 'Append entries (ids already there are skipped)', body: '{entries}' },
  },
  '/api/v1/threadbase/sessions/{id}/context': {
    get: { tag: 'threadbase', summary: 'The context at the leaf in a wire format', params: ['format', 'leaf'] },
  },
  '/api/v1/threadbase/sessions/{id}/export': {
    get: { tag: 'threadbase', summary: 'The session as JSON or Markdown', params: ['format'] },
  },
  '/api/v1/threadbase/sessions/{id}/fork': { post: { tag: 'threadbase', summary: 'Fork at an entry', body: '{at?, title?}' } },
  '/api/v1/threadbase/sessions/{id}/branch': {
    post: { tag: 'threadbase', summary: 'Add a message under an earlier entry', body: '{at, blob, format}' },
  },
  '/api/v1/threadbase/search': {
    get: { tag: 'threadbase', summary: 'Full-text search', params: ['q', 'role', 'tool', 'source', 'project', 'since', 'limit'] },
  },
  '/api/v1/threadbase/stats': {
    get: { tag: 'threadbase', summary: 'Session count and token usage', params: ['source', 'project', 'since', 'until'] },
  },
};

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [path, ops] of Object.entries(ROUTES)) {
    const item: Record<string, unknown> = {};
    for (const [method, op] of Object.entries(ops)) {
      const parameters = [
        ...(path.includes('{id}') ? [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] : []),
        ...(op.params ?? []).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
      ];
      item[method] = {
        tags: [op.tag],
        summary: op.summary,
        parameters,
        ...(op.body
          ? {
              requestBody: {
                required: true,
                description: op.body,
                content: { 'application/json': { schema: { type: 'object' } } },
              },
            }
          : {}),
        responses: {
          '200': {
            description: 'Envelope {code: 0, data, msg: "ok"}',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } },
          },
          '400': { description: 'Invalid request' },
          '401': { description: 'Missing or wrong API key' },
          '404': { description: 'No such session in this project' },
          '413': { description: 'Body too large' },
        },
      };
    }
    paths[path] = item;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'threadbase server', version: '1', description: 'Acontext-compatible session API plus threadbase routes' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Envelope: {
          type: 'object',
          properties: { code: { type: 'integer' }, data: {}, msg: { type: 'string' } },
          required: ['code', 'msg'],
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
