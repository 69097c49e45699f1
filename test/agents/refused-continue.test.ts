/**
 * Refused and cancelled calls and the real cn (@continuedev/cli 1.5.47, against the loopback stand-in):
 * - calls cn's permission rules refused (`--exclude Bash`, the model calling Bash anyway) read as refused,
 *   and `cn --fork` sends them as threadbase's context has them;
 * - Gemini CLI's refused and cancelled calls written into Continue become cn's own (a `canceled` state of
 *   "Permission denied by user"; a state without output, which cn sends as "Tool cancelled"): read back
 *   marked so, and cn sends them as our context says;
 * - refused and cancelled results written as `tool` items (results read from Continue's own) are in cn's
 *   words too: cn sends a tool item's content where it stands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { TOOL_ITEM } from '../../src/formats/continue/history.js';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import type { Rule } from '../helpers/anthropic-standin.js';
import { textOf as standinText } from '../helpers/anthropic-standin.js';
import { forkedByCn, runCn, writeContinueConfig } from '../helpers/continue.js';
import { okProbeRule } from '../helpers/conversions.js';
import { chainSession, declinedResult, geminiDeclinedSession, textMessage, toolResultsOf } from '../helpers/sessions.js';

let home: AgentHome;
let driver: ContinueDriver;

/** "CALL: <command>": a Bash call, offered or not. */
const callRule: Rule = (req) => {
  const last = req.messages.at(-1);
  const m = /CALL: (.+)/.exec(standinText(last));
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  return m && !answered ? { toolUse: { name: 'Bash', input: { command: (m[1] as string).trim() } } } : undefined;
};

beforeAll(async () => {
  home = await setupAgentHome({ rules: [callRule, okProbeRule] });
  await writeContinueConfig(home);
  driver = new ContinueDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

describe('refused calls and the real cn', () => {
  it("a call cn's permission rules refused reads as refused and is sent on --fork as threadbase says", async () => {
    await runCn(home, ['--exclude', 'Bash', 'CALL: touch made.txt']);
    const [listed] = await driver.listSessions();
    if (!listed) throw new Error('no session');
    const results = toolResultsOf(await driver.getSession(listed.id));
    expect(results.map((r) => [r.content, r.isError, r.meta?.refused])).toEqual([
      ['Command blocked by security policy', true, true],
    ]);
    const { sent, ours } = await forkedByCn(home, listed.id, 'probe own refusal');
    expect(sent.filter((s) => s.startsWith('result:'))).toEqual([
      expect.stringMatching(/^result:[^:]+:Command blocked by security policy$/),
    ]);
    expect(sent).toEqual(ours);
  }, 180_000);

  it("Gemini CLI's refused and cancelled calls are written as cn's own and sent so", async () => {
    const session = geminiDeclinedSession({ project: home.project, model: 'claude-standin', tool: 'Bash', cancelledToo: true });
    const info = await driver.writeSession(session);
    expect(toolResultsOf(await driver.getSession(info.id)).map((r) => [r.meta?.refused, r.meta?.cancelled])).toEqual([
      [true, undefined],
      [undefined, true],
    ]);
    const { sent, ours } = await forkedByCn(home, info.id, 'probe gemini refusal');
    expect(sent.filter((s) => s.startsWith('result:'))).toEqual([
      'result:call_a:Permission denied by user',
      'result:call_b:Tool cancelled',
    ]);
    expect(sent).toEqual(ours);
  }, 180_000);

  it("refused and cancelled results of `tool` items are written in cn's words and sent so", async () => {
    const item = (p: ToolResultPart): ToolResultPart => ({ ...p, meta: { ...p.meta, [TOOL_ITEM]: true } });
    const session = chainSession('tool-items', 'pi', home.project, [
      ['t1', textMessage('user', 'remove them')],
      [
        't2',
        {
          role: 'assistant',
          model: 'claude-standin',
          parts: ['r', 'c'].map((id) => ({ type: 'tool_call' as const, id, name: 'Bash', input: { command: `rm ${id}` } })),
        },
      ],
      [
        't3',
        {
          role: 'tool',
          parts: [
            item(declinedResult('r', 'Bash', 'Blocked by user', 'refused')),
            item(declinedResult('c', 'Bash', 'Operation aborted', 'cancelled')),
          ],
        },
      ],
    ]);
    const info = await driver.writeSession(session);
    const { sent, ours } = await forkedByCn(home, info.id, 'probe tool items');
    expect(sent.filter((s) => s.startsWith('result:'))).toEqual([
      'result:r:Tool cancelled',
      'result:c:Tool cancelled',
      'result:r:Permission denied by user',
      'result:c:Tool cancelled',
    ]);
    expect(sent).toEqual(ours);
  }, 180_000);
});
