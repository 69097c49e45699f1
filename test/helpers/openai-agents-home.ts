/**
 * A temp HOME where pi, codex and (if asked) OpenCode all speak to one loopback OpenAI Responses
 * stand-in as the same provider and model, so a session one of them recorded, converted, is the
 * resuming agent's own model, whose reasoning it sends back.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { writeCodexConfig, writeOpencodeOpenAiProvider, writePiProvider } from './agents.js';
import { type ResponsesRule, type ResponsesStandIn, startResponsesStandIn } from './openai-responses-standin.js';

/** The provider and model every agent of the home is configured with. */
export const OPENAI_PROVIDER = 'oai';
export const OPENAI_MODEL = 'oai-model';

export interface OpenAiAgentsHome {
  standIn: ResponsesStandIn;
  root: string;
  /** `<root>/project`, where the agents run */
  project: string;
  /** `<root>/.codex` */
  codexHome: string;
  /** threadbase's view of the home (CODEX_HOME set) */
  env: DriverEnv;
}

/**
 * For this test file: before its tests, a Responses stand-in answering by `rules` and a temp HOME
 * (`<prefix>…`) whose pi models.json, codex config.toml (reasoning summaries on) and, if `opencode`,
 * OpenCode's opencode.json point at it; after them, both closed and removed (KEEP=1 keeps the HOME
 * to look at). The object returned is filled in place, as agentHomeForFile's is.
 */
export function openAiAgentsHomeForFile(opts: {
  prefix: string;
  rules: ResponsesRule[];
  opencode?: boolean;
  timeout?: number;
}): OpenAiAgentsHome {
  const home = {} as OpenAiAgentsHome;
  beforeAll(async () => {
    home.standIn = await startResponsesStandIn({ rules: opts.rules });
    home.root = await fs.mkdtemp(join(tmpdir(), opts.prefix));
    home.project = join(home.root, 'project');
    home.codexHome = join(home.root, '.codex');
    await fs.mkdir(home.project, { recursive: true });
    await writePiProvider(home.root, OPENAI_PROVIDER, {
      baseUrl: home.standIn.baseUrl,
      api: 'openai-responses',
      model: { id: OPENAI_MODEL, name: 'OpenAI stand-in', reasoning: true, input: ['text'] },
    });
    if (opts.opencode)
      await writeOpencodeOpenAiProvider(home.root, OPENAI_PROVIDER, { baseUrl: home.standIn.baseUrl, model: OPENAI_MODEL });
    await writeCodexConfig(home.codexHome, home.standIn.baseUrl, {
      model: OPENAI_MODEL,
      provider: OPENAI_PROVIDER,
      providerName: 'OpenAI stand-in',
      extra: ['model_reasoning_summary = "auto"'],
    });
    home.env = { home: home.root, env: { CODEX_HOME: home.codexHome } };
  }, opts.timeout);
  afterAll(async () => {
    await home.standIn?.close();
    if (home.root && !process.env.KEEP) await fs.rm(home.root, { recursive: true, force: true });
  });
  return home;
}
