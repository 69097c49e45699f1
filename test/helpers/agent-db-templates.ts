/**
 * OpenCode's and Kilo's database as their first `session list` leaves it (every migration applied, the
 * one `global` project, nothing of a HOME in it), made once per machine and binary version and copied
 * into each new home: a test then skips the launch that would only migrate a new database (~1.3 s of
 * CPU for OpenCode, ~2.5 s for Kilo). Their config files are not copied, so the first launch of a home
 * still does the rest of its first-start work (Kilo's bash permission migration of kilo.json).
 */
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type AgentHome, createOpencodeDatabase } from './agents.js';
import { createKiloDatabase } from './kilo.js';

type HomeDirs = Pick<AgentHome, 'root' | 'project'>;

function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(resolve('node_modules', dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The template folder for `agent` (its ~/.local/share/<agent> without logs), made by `create` in a
 * scratch home if no run made it yet. Workers racing to make it each make their own and the first
 * rename wins; a folder is only ever seen whole.
 */
async function databaseTemplate(agent: 'opencode' | 'kilo', version: string, create: (home: HomeDirs) => Promise<void>) {
  const template = join(tmpdir(), 'threadbase-agent-db-templates', `${agent}-${version}`);
  if (existsSync(template)) return template;
  const scratch = await fs.mkdtemp(join(tmpdir(), `tb-${agent}-template-`));
  try {
    const project = join(scratch, 'project');
    await fs.mkdir(project, { recursive: true });
    await create({ root: scratch, project });
    const data = join(scratch, '.local', 'share', agent);
    await fs.rm(join(data, 'log'), { recursive: true, force: true });
    // the shared-memory index is the running process's; SQLite rebuilds it from the database and its WAL
    await fs.rm(join(data, `${agent}.db-shm`), { force: true });
    await fs.mkdir(join(template, '..'), { recursive: true });
    await fs.rename(data, template).catch((e: NodeJS.ErrnoException) => {
      if (!existsSync(template)) throw e;
    });
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
  return template;
}

async function copyTemplate(home: HomeDirs, agent: 'opencode' | 'kilo', template: string): Promise<void> {
  const data = join(home.root, '.local', 'share', agent);
  if (existsSync(join(data, `${agent}.db`))) throw new Error(`${agent} already has a database in ${home.root}`);
  await fs.cp(template, data, { recursive: true });
}

/** OpenCode's database in `home`, as createOpencodeDatabase makes it, copied from the template. */
export async function prepareOpencodeDatabase(home: HomeDirs): Promise<void> {
  await copyTemplate(home, 'opencode', await databaseTemplate('opencode', packageVersion('opencode-ai'), createOpencodeDatabase));
}

/** Kilo's database in `home`, as createKiloDatabase makes it, copied from the template. */
export async function prepareKiloDatabase(home: HomeDirs): Promise<void> {
  await copyTemplate(home, 'kilo', await databaseTemplate('kilo', packageVersion('@kilocode/cli'), createKiloDatabase));
}
