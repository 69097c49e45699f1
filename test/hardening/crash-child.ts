/**
 * The process crash.test.ts kills with SIGKILL: it writes into the agents' stores in a loop
 * through the CLI (new sessions by convert, appends by branch, fork, sync) and says on stdout which
 * operation it starts, so the test knows what each kill interrupted.
 * Run: node --import tsx test/hardening/crash-child.ts <home>
 */
import { main } from '../../src/cli/main.js';
import { homeEnv } from '../helpers/fixture-homes.js';

const home = process.argv[2];
if (!home) throw new Error('usage: crash-child.ts <home>');
const env = homeEnv(home);

const CLAUDE = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CLAUDE_ENTRY = 'dd7f7b9c-1078-4f4f-8953-9971ffa0805f';
const PI = '01a204ad-e570-7374-8cfa-3a3511154668';
const PI_ENTRY = 'eece2f65';
// Large appends make a kill inside the write itself likely.
const BIG = `crash test ${'x'.repeat(512 * 1024)}`;

const ops: [string, string[]][] = [
  ['append-pi', ['branch', PI, '--source', 'pi', '--at', PI_ENTRY, '--message', BIG]],
  ['new-pi', ['convert', CLAUDE, '--source', 'claude', '--to', 'pi', '--json']],
  ['new-claude', ['convert', PI, '--source', 'pi', '--to', 'claude', '--json']],
  ['convert-opencode', ['convert', CLAUDE, '--source', 'claude', '--to', 'opencode', '--json']],
  ['fork-pi', ['fork', PI, '--source', 'pi', '--json']],
  ['fork-claude', ['fork', CLAUDE, '--source', 'claude', '--json']],
  ['sync', ['sync', '--json']],
];
ops.push(['append-claude', ['branch', CLAUDE, '--source', 'claude', '--at', CLAUDE_ENTRY, '--message', BIG]]);

// Quiet: the CLI's own output is not what the test reads.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
process.stderr.write = (() => true) as typeof process.stderr.write;

write('ready\n');
const start = Number(process.env.TB_CRASH_START ?? 0);
for (let i = start; ; i++) {
  const [name, args] = ops[i % ops.length] as [string, string[]];
  write(`begin ${name}\n`);
  const code = await main(['node', 'threadbase', ...args], env);
  write(`end ${name} ${code}\n`);
}
