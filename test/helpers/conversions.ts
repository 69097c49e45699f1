/**
 * The agents tests of conversions: `threadbase convert --json` into an agent's store, and the real
 * agent (Claude Code, pi or OpenCode, on the loopback Anthropic stand-in) resuming what was written.
 */
import {
  type AgentHome,
  type CodexAgentHome,
  OPENCODE_MODEL,
  requestsSince,
  runClaude,
  runOpencode,
  runPi,
  setupCodexAgentHome,
} from './agents.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Context } from '../../src/model/tree.js';
import type { Session, SessionInfo } from '../../src/model/types.js';
import type { AnthropicRequest, Rule } from './anthropic-standin.js';
import type { Block, Msg } from './claude-requests.js';
import { runCliOk } from './cli.js';
import type { ResponsesRule } from './openai-responses-standin.js';

/** The agents that resume with an Anthropic model here. */
export type AnthropicAgent = 'claude' | 'pi' | 'opencode';

/** What `convert --json` prints of the session it wrote. */
export interface Written {
  id: string;
  source: string;
  path: string;
  warnings?: string[];
}

/** A session as `agent`'s driver reads it from the home's stores (its databases closed again). */
export async function readSession(home: Pick<AgentHome, 'env'>, agent: string, id: string): Promise<Session> {
  const sources = new Sources(home.env);
  try {
    const s = await sources.driver(agent).getSession(id);
    if (!s) throw new Error(`${agent} session ${id} not found`);
    return s;
  } finally {
    await sources.close();
  }
}

/** `f` given the driver of `agent` in these stores, closed again after. */
export async function withDriver<T>(
  env: ConstructorParameters<typeof Sources>[0],
  agent: string,
  f: (d: ReturnType<Sources['driver']>) => Promise<T>,
): Promise<T> {
  const sources = new Sources(env);
  try {
    return await f(sources.driver(agent));
  } finally {
    await sources.close();
  }
}

/** The session `agent` lists first (its newest) in the home's stores: the one the real agent just recorded. */
export async function newestSession(home: Pick<AgentHome, 'env'>, agent: string): Promise<SessionInfo> {
  const sources = new Sources(home.env);
  try {
    const [listed] = await sources.driver(agent).listSessions();
    if (!listed) throw new Error(`${agent} recorded no session`);
    return listed;
  } finally {
    await sources.close();
  }
}

/** A session's context as `agent`'s driver reads it from the home's stores (its databases closed again). */
export async function readContext(home: Pick<AgentHome, 'env'>, agent: string, id: string): Promise<Context> {
  const sources = new Sources(home.env);
  try {
    return await sources.driver(agent).getContext(id);
  } finally {
    await sources.close();
  }
}

/** An Anthropic stand-in rule answering every request `ok: <the last text of its last message>` (the probe). */
export const okProbeRule: Rule = (req) => {
  const last = req.messages.at(-1);
  return { text: `ok: ${textOf((last?.content ?? '') as string | Block[]).at(-1) ?? ''}` };
};

/**
 * setupCodexAgentHome for the tests of codex's own compactions carried into other agents: the probes
 * answered `ok: <probe>` (okProbeRule; the default rules would read a summary request into the system
 * prompt), codex's auto compaction out of reach but in a turn that lowers `model_auto_compact_token_limit`,
 * `responsesRules` first on the Responses stand-in.
 */
export function setupCodexCompactionHome(responsesRules: ResponsesRule[] = []): Promise<CodexAgentHome> {
  return setupCodexAgentHome({
    rules: [okProbeRule],
    responsesRules,
    codexConfig: { extra: ['model_auto_compact_token_limit = 100000000'] },
  });
}

/** `threadbase convert <id> --source <from> --to <to> --json`, failing unless it wrote into `to`. */
export async function convertWith(home: AgentHome, id: string, from: string, to: string): Promise<Written> {
  const written = JSON.parse(await runCliOk(home.env, ['convert', id, '--source', from, '--to', to, '--json'])) as Written;
  if (written.source !== to) throw new Error(`convert --to ${to} wrote a ${written.source} session`);
  return written;
}

/** A message's texts, less the system reminders Claude Code adds. */
export const textOf = (content: string | Block[]): string[] =>
  (typeof content === 'string' ? [{ type: 'text', text: content } as Block] : content).flatMap((b) =>
    b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>') ? [b.text] : [],
  );

/** The first request the stand-in recorded whose last message is the user's with `probe` its last text; `agent` is named when none is. */
export function requestEndingWithProbe(home: Pick<AgentHome, 'standIn'>, probe: string, agent: string): AnthropicRequest {
  const req = home.standIn.messageRequests().find((r) => {
    const last = r.messages.at(-1);
    return last?.role === 'user' && textOf(last.content as string | Block[]).at(-1) === probe;
  });
  if (!req) throw new Error(`${agent} sent no request ending with ${probe}`);
  return req;
}

/**
 * The conversation `target` sent when it resumed the written session with `probe` (the request whose
 * last user text is the probe). `model`: Claude Code's `--model` (it replays thinking only to the
 * model that recorded it).
 */
export async function resumeInTarget(
  home: AgentHome,
  target: AnthropicAgent,
  written: Written,
  probe: string,
  model?: string,
): Promise<Msg[]> {
  const mark = home.standIn.messageRequests().length;
  // each agent resumes a session in its own directory (`convert --project DIR` files it elsewhere):
  // OpenCode started in another one waits for a session it does not find there
  const project = (await readSession(home, target, written.id)).project ?? home.project;
  const there = { ...home, project };
  if (target === 'claude') await runClaude(there, ['--resume', written.id, ...(model ? ['--model', model] : [])], probe);
  else if (target === 'pi') await runPi(there, ['--session', written.path, '-p', probe]);
  else await runOpencode(there, ['run', '-s', written.id, '-m', OPENCODE_MODEL, ...probe.split(' ')]);
  const req = requestsSince(home, mark).find((r: AnthropicRequest) => {
    const last = r.messages.filter((m) => (m.role as string) !== 'system').at(-1);
    return (r.tools?.length ?? 0) > 0 && last?.role === 'user' && textOf(last.content as string | Block[]).at(-1) === probe;
  });
  if (!req) throw new Error(`${target} sent no request ending with ${probe}`);
  return req.messages as Msg[];
}

/**
 * Messages (any JSON) with the `_fc_…` item id taken off each tool id: pi keeps a Responses call's item id
 * in its tool-call id (`call_id|fc_…`, the API pairs the call with the reasoning before it by that id) and
 * sends it to Anthropic with `|` made `_` (pi-ai normalizeToolCallId), the call and its result alike.
 */
export function withoutPiItemIds<T>(messages: T): T {
  return JSON.parse(
    JSON.stringify(messages).replace(/"((?:tool_use_)?id)":"(call_[A-Za-z0-9_-]*?)_fc_[A-Za-z0-9_-]*"/g, '"$1":"$2"'),
  ) as T;
}

/**
 * The turns `target` sends for a compaction it resumes: its summary first, then `kept` (what the
 * compaction kept): Claude Code a user turn of the summary, pi the summary in its compaction
 * wording, OpenCode its "What did we do so far?" request answered by the summary.
 */
export function targetCompactionTurns(
  target: AnthropicAgent,
  summary: string,
  kept: Block[],
): { role: string; content: Block[] }[] {
  if (target === 'opencode')
    return [
      { role: 'user', content: [{ type: 'text', text: 'What did we do so far?' }] },
      { role: 'assistant', content: [{ type: 'text', text: summary }] },
      { role: 'user', content: kept },
    ];
  const text =
    target === 'pi'
      ? `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${summary}\n</summary>`
      : summary;
  return [{ role: 'user', content: [{ type: 'text', text }, ...kept] }];
}
