/**
 * A response's stop reason and wire API as Copilot CLI 1.0.102 records them in its session.usage_record
 * (`usage.finishReason`, `usage.apiEndpoint`), and back. Its finishReason is "normalized to OpenAI
 * vocabulary" (its schema, schemas/session-events.schema.json): seen from the real binary against the
 * Anthropic stand-in, `end_turn`, `stop_sequence` and `pause_turn` are recorded as `stop`, `tool_use` as
 * `tool_calls`, `max_tokens` and `model_context_window_exceeded` as `length`, `refusal` as
 * `content_filter`. Its apiEndpoint is one of `/v1/messages`, `/chat/completions`, `/responses`,
 * `ws:/responses` (the schema's enum). Read back, each is the model's (Anthropic's) word for it; what
 * these cannot tell (`stop_sequence`, pi's `stop`, an API of no endpoint) threadbase keeps beside
 * them (encode.ts, the assistant.message's `threadbase`).
 */

/** Copilot CLI's finishReason of each stop reason the model's messages carry (Anthropic's, pi's, OpenAI's, OpenCode's). */
const FINISH_OF: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  stop: 'stop',
  tool_use: 'tool_calls',
  toolUse: 'tool_calls',
  tool_calls: 'tool_calls',
  'tool-calls': 'tool_calls',
  max_tokens: 'length',
  max_output_tokens: 'length',
  model_context_window_exceeded: 'length',
  length: 'length',
  refusal: 'content_filter',
  content_filter: 'content_filter',
  'content-filter': 'content_filter',
};

/** The model's stop reason of each finishReason Copilot CLI records. */
const STOP_OF: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/** Copilot CLI's apiEndpoint of each wire API (pi's names, which the model's `api` uses). */
const ENDPOINT_OF: Record<string, string> = {
  'anthropic-messages': '/v1/messages',
  'openai-completions': '/chat/completions',
  'openai-responses': '/responses',
  'openai-codex-responses': '/responses',
  'azure-openai-responses': '/responses',
};

const API_OF: Record<string, string> = {
  '/v1/messages': 'anthropic-messages',
  '/chat/completions': 'openai-completions',
  '/responses': 'openai-responses',
  'ws:/responses': 'openai-responses',
};

/** The finishReason Copilot CLI records for a stop reason; undefined for one it has no word for (an error, an abort). */
export function copilotFinishReason(stopReason: string | undefined): string | undefined {
  return stopReason === undefined ? undefined : FINISH_OF[stopReason];
}

export function copilotApiEndpoint(api: string | undefined): string | undefined {
  return api === undefined ? undefined : ENDPOINT_OF[api];
}

/** The stop reason of a recorded finishReason: `kept` (threadbase's, encode.ts) where it is the one recorded so, else the model's word. */
export function stopReasonOf(finishReason: string | undefined, kept: string | undefined): string | undefined {
  if (kept !== undefined && (finishReason === undefined || FINISH_OF[kept] === finishReason)) return kept;
  return finishReason === undefined ? undefined : (STOP_OF[finishReason] ?? finishReason);
}

/** The wire API of a recorded apiEndpoint: `kept` where it is the one recorded so (or none is), else the endpoint's. */
export function apiOf(endpoint: string | undefined, kept: string | undefined): string | undefined {
  if (kept !== undefined && (endpoint === undefined || ENDPOINT_OF[kept] === endpoint)) return kept;
  return endpoint === undefined ? undefined : API_OF[endpoint];
}

/**
 * What the assistant.message's `threadbase` keeps of a stop reason and API, where what is written in the
 * usage record (if one is: `recorded`) would read back as another or as none.
 */
export function keptFinish(
  stopReason: string | undefined,
  api: string | undefined,
  recorded: boolean,
): { stopReason?: string; api?: string } {
  const finish = recorded ? copilotFinishReason(stopReason) : undefined;
  const endpoint = recorded ? copilotApiEndpoint(api) : undefined;
  return {
    ...(stopReason !== undefined && stopReasonOf(finish, undefined) !== stopReason ? { stopReason } : {}),
    ...(api !== undefined && apiOf(endpoint, undefined) !== api ? { api } : {}),
  };
}
