/**
 * Whether OpenCode can resume a written session on the model it recorded, and what to run when it
 * cannot (threadbase handoff prints it): OpenCode 1.18.33 fails such a resume with "UnknownError …
 * Unexpected server error" (its log: ProviderModelNotFoundError) unless given `-m`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DriverEnv, ResumeAdvice } from '../../model/driver.js';
import type { Session } from '../../model/types.js';
import { shellQuote } from '../shared/shell.js';

/**
 * OpenCode's well-known providers (models.dev's) and the variables it takes each one's key from, for
 * when there is no models.dev cache to read them from. OpenCode Zen (`opencode`) has free models and
 * needs no key.
 */
const OPENCODE_PROVIDER_KEYS: Record<string, readonly string[]> = {
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  google: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
  'google-vertex': ['GOOGLE_VERTEX_PROJECT', 'GOOGLE_CLOUD_PROJECT', 'GCP_PROJECT'],
  'amazon-bedrock': ['AWS_ACCESS_KEY_ID', 'AWS_PROFILE', 'AWS_BEARER_TOKEN_BEDROCK'],
  azure: ['AZURE_RESOURCE_NAME', 'AZURE_API_KEY'],
  'github-copilot': [],
  openrouter: ['OPENROUTER_API_KEY'],
  groq: ['GROQ_API_KEY'],
  mistral: ['MISTRAL_API_KEY'],
  xai: ['XAI_API_KEY'],
  deepseek: ['DEEPSEEK_API_KEY'],
};

const readText = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** OpenCode's global config files, then OPENCODE_CONFIG's, then the project's (`project`). */
function openCodeConfigs(env: DriverEnv, project: string | undefined): string[] {
  const configDir = join(env.env.XDG_CONFIG_HOME || join(env.home, '.config'), 'opencode');
  return [
    ...['opencode.json', 'opencode.jsonc', 'config.json'].map((f) => join(configDir, f)),
    ...(env.env.OPENCODE_CONFIG ? [env.env.OPENCODE_CONFIG] : []),
    ...(project ? ['opencode.json', 'opencode.jsonc'].map((f) => join(project, f)) : []),
  ];
}

/**
 * Whether OpenCode can resume on the model: its provider is a built-in one (a key of its models.dev
 * cache, ~/.cache/opencode/models.json, or without that cache a well-known provider) that OpenCode
 * loads, having a key for it (one of its variables set, a login in its auth.json, or the provider
 * named in its config); or the provider and the model are in its global or the project's config. Else
 * resuming fails with "UnknownError … Unexpected server error" (its log: ProviderModelNotFoundError),
 * unless given `-m`: a pi session's `standin/claude-standin`, a Claude Code session's
 * `anthropic/claude-opus-5-5` with no Anthropic key (OpenCode 1.18.33, probed).
 */
export function openCodeKnowsModel(
  env: DriverEnv,
  { provider, model }: { provider: string; model: string },
  project: string | undefined,
): boolean {
  const configs = openCodeConfigs(env, project).flatMap((f) => readText(f) ?? []);
  const cache = readText(join(env.env.XDG_CACHE_HOME || join(env.home, '.cache'), 'opencode', 'models.json'));
  let keys: readonly string[] | undefined;
  try {
    const known = cache !== undefined ? (JSON.parse(cache) as Record<string, { env?: unknown } | undefined>) : undefined;
    const entry = known && Object.hasOwn(known, provider) ? known[provider] : undefined;
    keys = known
      ? entry && (Array.isArray(entry.env) ? entry.env.filter((k): k is string => typeof k === 'string') : [])
      : OPENCODE_PROVIDER_KEYS[provider];
  } catch {
    keys = OPENCODE_PROVIDER_KEYS[provider];
  }
  if (provider === 'opencode') return true;
  if (keys !== undefined) {
    const auth = readText(join(env.env.XDG_DATA_HOME || join(env.home, '.local', 'share'), 'opencode', 'auth.json'));
    let loggedIn = false;
    try {
      loggedIn = auth !== undefined && Object.hasOwn(JSON.parse(auth) as object, provider);
    } catch {}
    if (keys.some((k) => env.env[k]) || loggedIn || configs.some((text) => text.includes(JSON.stringify(provider)))) return true;
  }
  // JSONC, read as text: the provider's id and the model's, each a quoted name in it, are taken as the
  // provider's entry and its model's (a provider of one's own lists its models)
  return configs.some((text) => text.includes(JSON.stringify(provider)) && text.includes(JSON.stringify(model)));
}

/** The model OpenCode's config (the project's over the global one) chooses by default, as provider/model. */
export function openCodeConfiguredModel(env: DriverEnv, project: string | undefined): string | undefined {
  let chosen: string | undefined;
  for (const file of openCodeConfigs(env, project)) {
    // JSONC, read as text: the top-level "model" is the one at the start of a line or after "{"
    const m = readText(file)?.match(/(?:^|[{,])\s*"model"\s*:\s*"([^"/\s]+\/[^"\s]+)"/);
    if (m?.[1]) chosen = m[1];
  }
  return chosen;
}

/** The provider/model OpenCode resumes `session` with: its last message's that names one. */
function recordedModel(session: Session): { provider: string; model: string } | undefined {
  for (const e of [...session.entries].reverse())
    if (e.kind === 'message' && e.message.model) return { provider: e.message.provider ?? 'anthropic', model: e.message.model };
  return undefined;
}

/**
 * What to run to resume `session` (written under `command`) when OpenCode has no use of the model it
 * recorded: `command` with `-m` and the model its config chooses (else a placeholder), and why.
 */
export function openCodeResumeAdvice(
  env: DriverEnv,
  session: Session,
  command: string,
  project: string | undefined,
): ResumeAdvice | undefined {
  const model = recordedModel(session);
  if (!model || openCodeKnowsModel(env, model, project)) return undefined;
  const configured = openCodeConfiguredModel(env, project);
  return {
    command: `${command} -m ${configured ? shellQuote(configured) : '<provider/model>'}`,
    ...(configured ? { model: configured } : {}),
    note: `the session's model ${model.provider}/${model.model} is one OpenCode cannot use here: its provider is not models.dev's with a key set (an environment variable, \`opencode auth login\`) nor in its config with that model. Resume with -m <provider/model> of one it has${configured ? ` (above: ${configured}, its config's model)` : ' (e.g. -m anthropic/claude-sonnet-4-5 with ANTHROPIC_API_KEY set)'}, or it fails with "Unexpected server error"`,
  };
}
