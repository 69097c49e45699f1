/** The driver conformance suite over a Kilo CLI database (the real 7.7.7 schema, from the fixture) in a temp home. */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { describeDriverConformance } from './driver-suite.js';

describeDriverConformance(
  'kilo',
  async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-conf-kilo-'));
    const dataDir = join(home, '.local', 'share', 'kilo');
    await mkdir(dataDir, { recursive: true });
    await copyFile(join(__dirname, '..', 'fixtures', 'kilo', 'real-7.7.7', 'kilo.db'), join(dataDir, 'kilo.db'));
    const sources = new Sources({ home, env: { HOME: home } });
    return {
      driver: sources.driver('kilo'),
      cleanup: async () => {
        await sources.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  },
  {
    // Kilo's records are OpenCode's, read and written by the same code (src/formats/opencode)
    deviations: {
      'list text': 'the kilo driver matches --text against titles only, as OpenCode’s',
      'entry times': "Kilo keeps a tool result inside its assistant message, so it has that message's time",
      'fork parent': "Kilo's parentID means sub-agent, so a fork is written without a parent",
    },
  },
);
