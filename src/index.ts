/** threadbase's library API. */
import './formats/all.js';
import './stores/local-source.js';

export { main as runCli } from './cli/main.js';
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
export {
  type ConvertOptions,
  type ConvertToOptions,
  convertSession,
  convertSessionAll,
  sessionAlongPath,
} from './convert/session.js';
// the format encoders on their own: a session in memory → an agent's own records, no store touched
export { encodeClaudeTranscript } from './formats/claude/encode.js';
export { CodexDriver, contextToResponses, messageToItems } from './formats/codex/index.js';
export { GeminiDriver } from './formats/gemini/index.js';
export { type EncodedOpenCode, encodeOpenCodeSession } from './formats/opencode/export.js';
export { encodePiSessionFile } from './formats/pi/encode.js';
export { formatNames, registerFormat, Sources, type SourcesOptions } from './formats/registry.js';
export type { EncodedJsonl, JsonlEncodeOptions } from './formats/shared/encoded.js';
export { ZedDriver } from './formats/zed/index.js';
export * from './model/index.js';
export { MemoryStore } from './stores/memory/index.js';
export { type OpenStoreOptions, openStore, threadbaseHome } from './stores/open.js';
export type { PostgresStore, PostgresStoreOptions } from './stores/postgres/index.js';
export { openRemoteStore, RemoteError, RemoteStore, type RemoteStoreOptions } from './stores/remote/index.js';
