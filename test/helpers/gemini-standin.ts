/**
 * A loopback stand-in for the Gemini API (generativelanguage `v1beta/models/<model>:<method>`), so the
 * real Gemini CLI runs offline (`GOOGLE_GEMINI_BASE_URL`). It records every request (the `contents`
 * of a resumed chat are what tests compare with threadbase's Gemini context) and answers by simple rules:
 * `RUN: <command>` → a thought and a `run_shell_command` call; a function response → `Tool finished: …`;
 * anything else → `ok: <the user's words>`.
 */
import type { ServerResponse } from 'node:http';
import { estimateTokens, type RecordedRequest, startRecordingServer, writeJson } from './loopback-server.js';

export type GeminiPart = { [k: string]: unknown };
export interface GeminiContent {
  role?: string;
  parts: GeminiPart[];
}
export interface GeminiRequest {
  contents: GeminiContent[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  [k: string]: unknown;
}

export interface GeminiReply {
  text?: string;
  thought?: string;
  call?: { name: string; args: Record<string, unknown> };
}

export type GeminiRule = (req: GeminiRequest) => GeminiReply | undefined;

export interface GeminiStandIn {
  /** http://127.0.0.1:PORT (GOOGLE_GEMINI_BASE_URL) */
  url: string;
  requests: RecordedRequest[];
  /** Bodies of every streamGenerateContent request (the chat's turns), in order. */
  chatRequests(): GeminiRequest[];
  close(): Promise<void>;
}

function lastUser(req: GeminiRequest): GeminiContent | undefined {
  return req.contents?.findLast((c) => c.role === 'user');
}

function textOfParts(c: GeminiContent | undefined): string {
  return (c?.parts ?? []).map((p) => (typeof p.text === 'string' && !p.thought ? p.text : '')).join('\n');
}

export const defaultGeminiRules: GeminiRule[] = [
  (req) => {
    const fr = lastUser(req)?.parts.find((p) => typeof p.functionResponse === 'object');
    if (!fr) return undefined;
    return { text: `Tool finished: ${JSON.stringify((fr.functionResponse as { response?: unknown }).response).slice(0, 60)}` };
  },
  (req) => {
    const m = /RUN: (.+)/.exec(textOfParts(lastUser(req)));
    const hasShell = req.tools?.some((t) => t.functionDeclarations?.some((f) => f.name === 'run_shell_command'));
    if (!m || !hasShell) return undefined;
    return { thought: 'Running it.', call: { name: 'run_shell_command', args: { command: (m[1] as string).trim() } } };
  },
  (req) => ({ text: `ok: ${textOfParts(lastUser(req)).replace(/\s+/g, ' ').trim().slice(0, 40)}` }),
];

function replyParts(reply: GeminiReply): GeminiPart[] {
  const parts: GeminiPart[] = [];
  if (reply.thought) parts.push({ text: reply.thought, thought: true });
  if (reply.text) parts.push({ text: reply.text });
  if (reply.call) parts.push({ functionCall: { name: reply.call.name, args: reply.call.args } });
  if (parts.length === 0) parts.push({ text: '' });
  return parts;
}

function response(parts: GeminiPart[], req: unknown, model: string): Record<string, unknown> {
  const prompt = estimateTokens(req);
  const out = estimateTokens(parts);
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: prompt,
      candidatesTokenCount: out,
      cachedContentTokenCount: 0,
      thoughtsTokenCount: parts.some((p) => p.thought) ? 5 : 0,
      totalTokenCount: prompt + out,
    },
    modelVersion: model,
  };
}

export async function startGeminiStandIn(opts: { rules?: GeminiRule[] } = {}): Promise<GeminiStandIn> {
  const rules = [...(opts.rules ?? []), ...defaultGeminiRules];
  const server = await startRecordingServer((req, res: ServerResponse) => {
    const m = /\/models\/([^/:]+):(\w+)$/.exec(req.path);
    if (req.method !== 'POST' || !m) {
      writeJson(res, 404, { error: { code: 404, message: `stand-in: no ${req.method} ${req.path}`, status: 'NOT_FOUND' } });
      return;
    }
    const [, model = 'gemini', method] = m;
    const body = (req.body ?? {}) as GeminiRequest;
    if (method === 'countTokens') {
      writeJson(res, 200, { totalTokens: estimateTokens(body) });
      return;
    }
    if (method === 'generateContent') {
      // side requests (routing, next-speaker checks, JSON answers): a plain text answer
      const wantsJson = JSON.stringify(body.generationConfig ?? {}).includes('application/json');
      const text = wantsJson
        ? '{"reasoning":"stand-in","complexity_reasoning":"stand-in","complexity_score":90,"next_speaker":"user","model_choice":"pro"}'
        : 'ok';
      writeJson(res, 200, response([{ text }], body, model));
      return;
    }
    if (method !== 'streamGenerateContent') {
      writeJson(res, 404, { error: { code: 404, message: `stand-in: no method ${method}`, status: 'NOT_FOUND' } });
      return;
    }
    let reply: GeminiReply = { text: 'ok' };
    for (const rule of rules) {
      const r = rule(body);
      if (r) {
        reply = r;
        break;
      }
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`data: ${JSON.stringify(response(replyParts(reply), body.contents, model))}\n\n`);
    res.end();
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    requests: server.requests,
    chatRequests: () =>
      server.requests
        .filter((r) => r.method === 'POST' && /:streamGenerateContent$/.test(r.path))
        .map((r) => r.body as GeminiRequest),
    close: server.close,
  };
}
