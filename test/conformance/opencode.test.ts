/** The driver conformance suite over an OpenCode database (the real schema, from the fixture) in a temp home. */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance(
  'opencode',
  async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-conf-opencode-'));
    const dataDir = join(home, '.local', 'share', 'opencode');
    await mkdir(dataDir, { recursive: true });
    await copyFile(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), join(dataDir, 'opencode.db'));
    const sources = new Sources({ home, env: { HOME: home } });
    return {
      driver: sources.driver('opencode'),
      cleanup: async () => {
        await sources.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  },
  {
    deviations: {
      'list text': 'the opencode driver matches --text against titles only',
      'entry times': "OpenCode keeps a tool result inside its assistant message, so it has that message's time",
      'fork parent': "OpenCode's parentID means sub-agent, so a fork is written without a parent",
    },
  },
);
