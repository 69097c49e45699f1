/** threadbase's library API. */
import './formats/all.js';

export * from './model/index.js';
export { Sources, registerFormat, formatNames } from './formats/registry.js';
export { renderContext, registerContextFormat, contextFormatNames } from './convert/formats.js';
export { contextToMarkdown, messageToMarkdown } from './convert/markdown.js';
export { convertSession, convertSessionAll, sessionAlongPath } from './convert/session.js';
export { main as runCli } from './cli/main.js';
export * from './convert/anthropic.js';
export * from './convert/openai.js';
export * from './convert/ai-sdk.js';
export { ClaudeAgentStorage, type ClaudeAgentStorageOptions, type SaveOutcome } from './convert/agent-storage.js';
export { MemoryStore } from './stores/memory/index.js';
export { openStore, threadbaseHome, type OpenStoreOptions } from './stores/open.js';
export { RemoteStore, RemoteError, openRemoteStore, type RemoteStoreOptions } from './stores/remote/index.js';
export { CodexDriver, contextToResponses, messageToItems } from './formats/codex/index.js';
export { GeminiDriver } from './formats/gemini/index.js';
export { ZedDriver } from './formats/zed/index.js';
export type { PostgresStore, PostgresStoreOptions } from './stores/postgres/index.js';
