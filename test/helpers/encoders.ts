/** A session through the library's Claude Code, pi and OpenCode encoders and back through each agent's reader. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sessionFromExport } from '../../src/formats/opencode/index.js';
import * as lib from '../../src/index.js';
import type { Session } from '../../src/model/types.js';

export interface ThroughEncoders {
  claude: ReturnType<typeof lib.encodeClaudeTranscript>;
  pi: ReturnType<typeof lib.encodePiSessionFile>;
  opencode: ReturnType<typeof lib.encodeOpenCodeSession>;
  /** what Claude Code's and pi's readers (from the files) and OpenCode's export reader read back, in that order */
  back: Session[];
}

/**
 * `s` encoded for Claude Code and pi (their files written under the HOME `fileHome`, pi's dated
 * 2026-01-02) and as an OpenCode export, then read back by each.
 */
export async function throughEncoders(s: Session, fileHome: string): Promise<ThroughEncoders> {
  const claude = lib.encodeClaudeTranscript(s);
  const pi = lib.encodePiSessionFile(s, { now: new Date(Date.UTC(2026, 0, 2)) });
  for (const [file, path] of [
    [claude, join(fileHome, '.claude', claude.relativePath)],
    [pi, join(fileHome, '.pi', 'agent', pi.relativePath)],
  ] as const) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.jsonl);
  }
  const opencode = lib.encodeOpenCodeSession(s);
  const sources = new lib.Sources({ home: fileHome, env: {} });
  try {
    const back = [
      await sources.driver('claude').getSession(claude.sessionId),
      await sources.driver('pi').getSession(pi.sessionId),
      sessionFromExport(JSON.parse(JSON.stringify(opencode.exportJson)), 'export.json'),
    ];
    return {
      claude,
      pi,
      opencode,
      back: back.map((b, i) => {
        if (!b) throw new Error(`${['claude', 'pi', 'opencode'][i]}: the written session was not read back`);
        return b;
      }),
    };
  } finally {
    await sources.close();
  }
}
