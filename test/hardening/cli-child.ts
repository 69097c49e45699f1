/**
 * The CLI as its own process, from the sources (bin/threadbase.js runs the build): for tests that
 * need a long-running threadbase (sync --watch) beside a real agent.
 * Run: node --import tsx test/hardening/cli-child.ts <threadbase args…>
 */
import { main } from '../../src/cli/main.js';

process.exitCode = await main(['node', 'threadbase', ...process.argv.slice(2)]);
