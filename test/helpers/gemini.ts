import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DriverEnv } from '../../src/model/driver.js';
import { runBinary } from './agents.js';
import { type GeminiContent, type GeminiRule, type GeminiStandIn, startGeminiStandIn } from './gemini-standin.js';

export const GEMINI_BIN = resolve('node_modules/.bin/gemini');

export interface GeminiHome {
  root: string;
  project: string;
  env: DriverEnv;
  standIn: GeminiStandIn;
  close(): Promise<void>;
}

export async function setupGeminiHome(opts: { rules?: GeminiRule[] } = {}): Promise<GeminiHome> {
  const standIn = await startGeminiStandIn(opts);
  const root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-home-'));
  const project = join(root, 'proj');
  await fs.mkdir(project, { recursive: true });
  await fs.mkdir(join(root, '.gemini'), { recursive: true });
  await fs.writeFile(
    join(root, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    }),
  );
  const env: DriverEnv = {
    home: root,
    env: { HOME: root, GEMINI_CLI_HOME: root, THREADBASE_HOME: join(root, '.threadbase') },
  };
  return {
    root,
    project,
    env,
    standIn,
    close: async () => {
      await standIn.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** Runs `gemini <args>` in the home's project; rejects with its output when it fails or hangs. */
export async function runGemini(home: GeminiHome, args: string[], cwd = home.project): Promise<string> {
  const r = await runBinary(process.execPath, [GEMINI_BIN, ...args], cwd, {
    PATH: process.env.PATH ?? '',
    HOME: home.root,
    GEMINI_CLI_HOME: home.root,
    GEMINI_API_KEY: 'offline',
    GOOGLE_GEMINI_BASE_URL: home.standIn.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_COLOR: '1',
    TERM: 'dumb',
  });
  return r.stdout + r.stderr;
}

/**
 * The `contents` Gemini CLI sent when it resumed with `probe`, less what it adds itself: the fresh
 * `<session_context>` part it puts first, and the probe turn at the end.
 */
export function resumedContents(home: GeminiHome, probe: string): GeminiContent[] {
  const req = home.standIn.chatRequests().find((r) => {
    const last = r.contents.at(-1);
    return last?.role === 'user' && last.parts.at(-1)?.text === probe;
  });
  if (!req) throw new Error(`gemini sent no request ending with ${probe}`);
  const contents = structuredClone(req.contents);
  const first = contents[0];
  if (first && typeof first.parts[0]?.text === 'string' && first.parts[0].text.startsWith('<session_context>')) {
    first.parts.shift();
    if (first.parts.length === 0) contents.shift();
  }
  const last = contents.at(-1) as GeminiContent;
  last.parts.pop();
  if (last.parts.length === 0) contents.pop();
  return contents;
}
