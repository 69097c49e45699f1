/**
 * run-markers.ts: the byte scan the Copilot CLI listing makes of a file's new bytes, read in chunks of
 * 256 KiB: a run event's marker is found wherever it lies, across two chunks too, and only between the
 * offsets given; the bytes before an offset the listing keeps to tell a file appended to from one rewritten.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { endBytes, endLine, hasRunMarkers } from '../../src/formats/copilot/run-markers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-copilot-run-markers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 256 * 1024;
const MARKER = '"agentId"';

it.each([0, 1, 4, MARKER.length - 1, MARKER.length])('a marker starting %i bytes before a chunk ends is found', async (back) => {
  const file = join(dir, `across-${back}.jsonl`);
  const at = CHUNK - back;
  const text = `${'x'.repeat(at)}${MARKER}${'y'.repeat(100)}\n`;
  writeFileSync(file, text);
  expect(await hasRunMarkers(file, 0, text.length)).toBe(true);
  // the scan of the bytes after it, or before it, finds none
  expect(await hasRunMarkers(file, at + 1, text.length)).toBe(false);
  expect(await hasRunMarkers(file, 0, at + MARKER.length - 1)).toBe(false);
});

it('plain events hold none; the bytes before an offset, and whether they end a line', async () => {
  const file = join(dir, 'plain.jsonl');
  const line = `${JSON.stringify({ type: 'user.message', data: { content: 'an agent said hi' }, id: 'u1' })}\n`;
  writeFileSync(file, line.repeat(20_000));
  expect(await hasRunMarkers(file, 0, line.length * 20_000)).toBe(false);
  expect(endLine(await endBytes(file, line.length))).toBe(true);
  expect(endLine(await endBytes(file, line.length + 3))).toBe(false);
  expect(endLine(await endBytes(file, 0))).toBe(true);
  // the same bytes before the same offset of another line; others before another
  expect(await endBytes(file, line.length * 2)).toBe(await endBytes(file, line.length));
  expect(await endBytes(file, line.length * 2)).toBe(Buffer.from(line.slice(-32)).toString('base64'));
  expect(await endBytes(file, line.length + 3)).not.toBe(await endBytes(file, line.length));
});
