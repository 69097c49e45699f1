/** Runs the CLI from source (tests and development: `npx tsx src/cli/run.ts <args>`). */
import { main } from './main.js';

process.exitCode = await main(process.argv);
