/**
 * The wire formats a context can be printed in. Each converter module adds itself here, so the
 * CLI and the server list and use them without knowing them.
 */
import type { Context } from '../model/tree.js';
import { contextToAiSdk } from './ai-sdk.js';
import { contextToAnthropic } from './anthropic.js';
import { contextToMarkdown } from './markdown.js';
import { contextToOpenAI } from './openai.js';

export type ContextRenderer = (ctx: Context) => unknown;

const renderers = new Map<string, ContextRenderer>([
  ['markdown', contextToMarkdown],
  ['anthropic', (ctx) => contextToAnthropic(ctx)],
  ['openai', contextToOpenAI],
  ['ai-sdk', contextToAiSdk],
]);

export function registerContextFormat(name: string, render: ContextRenderer): void {
  renderers.set(name, render);
}

export function contextFormatNames(): string[] {
  return [...renderers.keys()];
}

/** A string for text formats, a JSON-able value for the others. */
export function renderContext(ctx: Context, format: string): unknown {
  const r = renderers.get(format);
  if (!r) throw new Error(`unknown context format "${format}" (known: ${contextFormatNames().join(', ')})`);
  return r(ctx);
}
