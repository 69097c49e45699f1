/** threadbase's library API. */
import './formats/all.js';
import './stores/local-source.js';
import type { DriverEnv } from './model/driver.js';

/**
 * The CLI, run in this process (argv as process.argv: node, script, args...); resolves to the exit code.
 * Loaded when called, so a library user does not load the CLI's modules (commander, the commands) on import.
 */
export async function runCli(argv: string[], env?: DriverEnv): Promise<number> {
  const { main } = await import('./cli/main.js');
  return main(argv, env);
}

export { ClaudeAgentStorage, type ClaudeAgentStorageOptions, type SaveOutcome } from './convert/agent-storage.js';
export * from './convert/ai-sdk.js';
export * from './convert/anthropic.js';
export { contextFormatNames, registerContextFormat, renderContext } from './convert/formats.js';
export {
  conversionLosses,
  type LossCounts,
  type LossDescriber,
  type LossReport,
  registerConversionLosses,
} from './convert/losses.js';
export { contextToMarkdown, messageToMarkdown } from './convert/markdown.js';
export * from './convert/openai.js';
export type { ReadIssue, WireReadOptions } from './convert/read-issues.js';
export {
  type ChildSessions,
  type ConvertOptions,
  type ConvertToOptions,
  childSessionsFrom,
  convertSession,
  convertSessionAll,
  sessionAlongPath,
  type WrittenSession,
} from './convert/session.js';
// the format encoders on their own: a session in memory → an agent's own records, no store touched
export { ClaudeDriver } from './formats/claude/driver.js';
export { encodeClaudeTranscript } from './formats/claude/encode.js';
export { ClineDriver, encodeClineMessages } from './formats/cline/index.js';
export { CodexDriver, contextToResponses, messageToItems } from './formats/codex/index.js';
export { ContinueDriver } from './formats/continue/index.js';
export { CopilotDriver } from './formats/copilot/index.js';
export { GeminiDriver } from './formats/gemini/index.js';
export { KiloDriver } from './formats/kilo/index.js';
export { OpenCodeDriver } from './formats/opencode/driver.js';
export { type EncodedOpenCode, encodeOpenCodeSession } from './formats/opencode/export.js';
export { PiDriver } from './formats/pi/driver.js';
export { encodePiSessionFile } from './formats/pi/encode.js';
export { QwenDriver } from './formats/qwen/index.js';
export {
  type DriverFactory,
  formatNames,
  type ListResult,
  registerFormat,
  Sources,
  type SourcesOptions,
} from './formats/registry.js';
export type { EncodedJsonl, JsonlEncodeOptions } from './formats/shared/encoded.js';
export { ZedDriver } from './formats/zed/index.js';
export * from './model/index.js';
// what `threadbase stats` prices a response with when its agent recorded no cost
export {
  costOf,
  loadPrices,
  type ModelPrice,
  type ModelUsageCost,
  PRICES,
  PRICES_DATE,
  type PriceTable,
  priceOf,
  type Rates,
  responseCost,
  usageCostByModel,
} from './stores/index-sync/prices.js';
// the local index: every agent's sessions read into one SQLite store, searched and counted (`threadbase sync`, `stats`)
export {
  STATS_BY,
  type StatsBy,
  type StatsOptions,
  type StatsRow,
  stats,
} from './stores/index-sync/stats.js';
export { IndexSync, indexPath, type SyncOptions, type SyncProgress, type SyncReport } from './stores/index-sync/sync.js';
export { MemoryStore } from './stores/memory/index.js';
export { type OpenStoreOptions, openStore, type ThreadbaseStore, threadbaseHome } from './stores/open.js';
export type { PostgresStore, PostgresStoreOptions } from './stores/postgres/index.js';
export { openRemoteStore, RemoteError, RemoteStore, type RemoteStoreOptions } from './stores/remote/index.js';
// better-sqlite3 is loaded on import anyway (OpenCode's and Zed's databases); pg stays behind openStore
export { openSqliteStore, SqliteStore } from './stores/sqlite/index.js';
