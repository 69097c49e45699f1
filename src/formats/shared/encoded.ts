/**
 * The shape of a session encoded into an agent's JSONL file without touching any store (the
 * per-agent encoders: `encodeClaudeTranscript`, `encodePiSessionFile`). An agent framework can
 * persist in any agent's format with these and write the bytes where it likes; the drivers'
 * writeSession does the same and writes them atomically into the agent's store.
 */
export interface EncodedJsonl {
  sessionId: string;
  /** Where the agent looks for it, relative to its home (`~/.claude`, `~/.pi/agent`). */
  relativePath: string;
  /** One JSON record a line, in order. */
  records: Record<string, unknown>[];
  /** The file's bytes: the records as JSONL. */
  jsonl: string;
  /** What could not be carried over, each naming the entry. */
  warnings: string[];
}

export interface JsonlEncodeOptions {
  /** The new session's id (default: a fresh one in the agent's scheme). */
  sessionId?: string;
  /** The working directory (default: the session's project). */
  cwd?: string;
}
