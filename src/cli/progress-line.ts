/**
 * A progress line on a terminal (`sync`'s): drawn over itself with a carriage return, cut to the
 * terminal's width so that it never wraps, and cleared for each line printed meanwhile (a warning),
 * which is printed whole above it. cli-progress turned the terminal's line wrapping off while it ran
 * (a warning naming its file and line was cut at the terminal's edge) and at its end put the cursor
 * back where it had started, so the summary was written over the warnings printed meanwhile.
 */
import { cutToColumns } from './text-width.js';

/** How often, at most, the line is drawn again (a sync reports each session). */
const REDRAW_MS = 50;
const CLEAR = '\r\x1b[K';

export class ProgressLine {
  private text = '';
  private drawnAt = 0;
  private drawn = false;

  constructor(
    private readonly write: (s: string) => void,
    /** the terminal's width now (it may be resized meanwhile) */
    private readonly columns: () => number | undefined,
  ) {}

  /** The progress as `text`, drawn at once when `now` (the first and the last), else when a moment has passed. */
  show(text: string, now = false): void {
    this.text = text;
    if (!now && Date.now() - this.drawnAt < REDRAW_MS) return;
    this.draw();
  }

  /** `line` (ending in a newline) printed whole above the progress line, which is drawn again under it. */
  print(line: string): void {
    this.write(this.drawn ? CLEAR + line : line);
    this.drawn = false;
    if (this.text) this.draw();
  }

  /** The progress line cleared: what follows is printed where it was. */
  done(): void {
    if (this.drawn) this.write(CLEAR);
    this.drawn = false;
    this.text = '';
  }

  private draw(): void {
    // one column short of the edge: a terminal that wraps at the last column would scroll
    const width = Math.max(1, (this.columns() ?? 80) - 1);
    this.write(CLEAR + cutToColumns(this.text, width));
    this.drawn = true;
    this.drawnAt = Date.now();
  }
}

/** `sync [#####-----] 12/45 claude`, its bar as wide as the terminal leaves room for (at most 40). */
export function syncProgressText(done: number, total: number, format: string, columns: number | undefined): string {
  const tail = ` ${done}/${total} ${format}`;
  // room left for the longest agent name ('threadbase'), so the bar keeps its width from one agent to the next
  const room = (columns ?? 80) - 1 - 'sync []'.length - Math.max(tail.length, ` ${total}/${total} threadbase`.length);
  const size = Math.min(40, room);
  if (size < 5) return `sync${tail}`;
  const full = total > 0 ? Math.round((done / total) * size) : 0;
  return `sync [${'#'.repeat(full)}${'-'.repeat(size - full)}]${tail}`;
}
