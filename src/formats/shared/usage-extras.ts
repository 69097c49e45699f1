/**
 * The usage terms an agent's own record has no field for (Claude Code's 1-hour cache writes, fast
 * mode, place of inference, web searches, advisor requests; reasoning tokens for pi), kept in a `threadbase` field of
 * the agent's usage record that the agent ignores, and read back from it. The formats whose agents
 * are proven to leave such a field alone use it (pi, OpenCode: test/agents).
 */
import type { AdvisorUsage, Usage } from '../../model/types.js';

export interface UsageExtras {
  reasoning?: number;
  cacheWrite1h?: number;
  webSearches?: number;
  speed?: 'fast';
  inferenceGeo?: string;
  advisors?: AdvisorUsage[];
}

/** The extras of u worth writing, or undefined (reasoning only when the agent has no field of its own). */
export function usageExtrasOf(u: Usage | undefined, opts: { reasoning: boolean }): UsageExtras | undefined {
  if (!u) return undefined;
  const x: UsageExtras = {
    ...(opts.reasoning && u.reasoning ? { reasoning: u.reasoning } : {}),
    ...(u.cacheWrite1h ? { cacheWrite1h: u.cacheWrite1h } : {}),
    ...(u.webSearches ? { webSearches: u.webSearches } : {}),
    ...(u.speed ? { speed: u.speed } : {}),
    ...(u.inferenceGeo ? { inferenceGeo: u.inferenceGeo } : {}),
    ...(u.advisors?.length ? { advisors: u.advisors } : {}),
  };
  return Object.keys(x).length ? x : undefined;
}

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

function readAdvisors(v: unknown): AdvisorUsage[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((a): AdvisorUsage[] => {
    if (typeof a !== 'object' || a === null || typeof a.model !== 'string' || !a.model) return [];
    const cacheWrite1h = count(a.cacheWrite1h);
    return [
      {
        model: a.model,
        input: count(a.input) ?? 0,
        output: count(a.output) ?? 0,
        cacheRead: count(a.cacheRead) ?? 0,
        cacheWrite: count(a.cacheWrite) ?? 0,
        ...(cacheWrite1h !== undefined ? { cacheWrite1h } : {}),
      },
    ];
  });
}

/** What a `threadbase` field holds, as Usage terms (anything malformed left out; reasoning only when asked for). */
export function readUsageExtras(field: unknown, opts: { reasoning: boolean }): UsageExtras {
  if (typeof field !== 'object' || field === null || Array.isArray(field)) return {};
  const f = field as Record<string, unknown>;
  const reasoning = opts.reasoning ? count(f.reasoning) : undefined;
  const cacheWrite1h = count(f.cacheWrite1h);
  const webSearches = count(f.webSearches);
  const advisors = readAdvisors(f.advisors);
  return {
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(cacheWrite1h !== undefined ? { cacheWrite1h } : {}),
    ...(webSearches !== undefined ? { webSearches } : {}),
    ...(f.speed === 'fast' ? { speed: 'fast' as const } : {}),
    ...(typeof f.inferenceGeo === 'string' && f.inferenceGeo ? { inferenceGeo: f.inferenceGeo } : {}),
    ...(advisors.length ? { advisors } : {}),
  };
}
