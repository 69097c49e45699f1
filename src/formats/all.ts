/**
 * Registers every format. Each format's folder registers itself when imported: through register.ts,
 * which loads what reading needs and not the write-only encoders (a driver imports its encoder when it
 * writes), or index.ts for the formats without one.
 */
// One import per format; keep sorted.
import './claude/register.js';
import './cline/index.js';
import './codex/register.js';
import './continue/register.js';
import './copilot/register.js';
import './gemini/register.js';
import './kilo/index.js';
import './opencode/register.js';
import './pi/register.js';
import './qwen/register.js';
import './zed/index.js';
