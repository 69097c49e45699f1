/** Registers every format. Each format's folder exports a `register()` that calls registerFormat. */
// One import per format; keep sorted.
import './claude/index.js';
import './cline/index.js';
import './codex/index.js';
import './continue/index.js';
import './copilot/index.js';
import './gemini/index.js';
import './kilo/index.js';
import './opencode/index.js';
import './pi/index.js';
import './qwen/index.js';
import './zed/index.js';
