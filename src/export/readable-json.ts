/**
 * readableJson, the one source of it: the HTML export calls it, and the web viewer's asset
 * `readable-json.js` is this function's own code, serialised when the server serves it
 * (functionModule in src/server/web/index.ts), so the viewer and the export read tool output alike. It must stay
 * self-contained: no imports and nothing from outside its body.
 */

/**
 * JSON a tool answered with, whose strings hold line breaks (Cline's read_files: `[{"query", "result":
 * "   1 | …\n   2 | …"}]`), which as JSON is one line of `\n`s: its keys and values one a line, each
 * string's lines as lines (`|`), as YAML writes them (the viewer's readableJson). Undefined for any
 * other text, JSON without such strings included (a file's own JSON shows as it is).
 */
export function readableJson(text: string): string | undefined {
  const t = text.trim();
  if (!/^[[{]/.test(t) || !t.includes('\\n')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return undefined;
  }
  const out: string[] = [];
  let multiline = false;
  // first: the prefix of the value's first line; rest: the indent of its further lines
  const emit = (v: unknown, first: string, rest: string): void => {
    if (typeof v === 'string' && v.includes('\n')) {
      multiline = true;
      out.push(`${first}|`);
      for (const line of v.replace(/\n$/, '').split('\n')) out.push(`${rest}${line}`);
    } else if (v !== null && typeof v === 'object') {
      const items: [string, unknown][] = Array.isArray(v)
        ? v.map((x): [string, unknown] => ['- ', x])
        : Object.entries(v).map(([k, x]): [string, unknown] => [`${k}: `, x]);
      if (!items.length) {
        out.push(`${first}${Array.isArray(v) ? '[]' : '{}'}`);
        return;
      }
      // at the top or after a dash the first item goes on that line; after a key, on the next
      const inline = first.trim() === '' || first.endsWith('- ');
      if (!inline) out.push(first.trimEnd());
      items.forEach(([head, x], i) => {
        emit(x, `${i === 0 && inline ? first : rest}${head}`, `${rest}  `);
      });
    } else out.push(`${first}${v === null ? 'null' : String(v)}`);
  };
  emit(value, '', '');
  return multiline ? out.join('\n') : undefined;
}
