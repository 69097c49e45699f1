/**
 * What the wire readers (messagesFromAnthropic, messagesFromOpenAI, messagesFromAiSdk and their
 * context* forms) do with an item they cannot read (a message that is not an object, a content item
 * that is neither an object nor a string, an unknown role): skip it, say so with where it was, and
 * read the rest.
 */

/** An item a reader skipped. */
export interface ReadIssue {
  /** Where it was in the input: `messages[3]`, `messages[3].content[1]`, `system[0]`. */
  path: string;
  /** Its index in the array that held it. */
  index: number;
  /** What was wrong, the path included. */
  message: string;
}

export interface WireReadOptions {
  /** Called once per skipped item; default: a process warning (`process.on('warning')`, code THREADBASE_SKIPPED_INPUT). */
  onIssue?: (issue: ReadIssue) => void;
}

/** How a reader reports: the item's array path (e.g. `messages[2].content`), its index there, and what is wrong. */
export type ReportIssue = (array: string, index: number, problem: string) => void;

export function issueReporter(opts: WireReadOptions | undefined): ReportIssue {
  const onIssue =
    opts?.onIssue ??
    ((issue: ReadIssue) => process.emitWarning(issue.message, { code: 'THREADBASE_SKIPPED_INPUT', detail: issue.path }));
  return (array, index, problem) => {
    const path = `${array}[${index}]`;
    onIssue({ path, index, message: `${path}: ${problem}, skipped` });
  };
}

/** `a number`, `null`, `an array`: what a value is, for an issue's message. */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** The path of a nested array: `messages[2]` + `content` → `messages[2].content` (no leading dot at the top). */
export function pathIn(at: string, key: string): string {
  return at ? `${at}.${key}` : key;
}
