#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`threadbase: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
