/**
 * The driver conformance suite over the viewer's driver on the agents' own files (`threadbase ui
 * --store agents`): each sample session is seeded in a temp home as an agent writes it (a Claude Code
 * transcript, a pi session), by that agent's driver, and AgentFilesDriver finds it among every
 * agent's store. It cannot write or search, so the suite's write and search tests skip.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Session } from '../../src/model/types.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { type ConformanceOptions, describeDriverConformance } from './driver-suite.js';

/** The suite over AgentFilesDriver with every sample written by `agent`'s own driver. */
function describeOverAgent(agent: string, opts: ConformanceOptions): void {
  describeDriverConformance(
    `agent files (${agent})`,
    async () => {
      const home = await mkdtemp(join(tmpdir(), `tb-conf-agent-files-${agent}-`));
      const sources = new Sources({ home, env: { HOME: home } });
      const writer = sources.driver(agent);
      return {
        driver: new AgentFilesDriver(sources),
        async seed(s: Session) {
          if (!writer.writeSession) throw new Error(`the ${agent} driver cannot write`);
          return (await writer.writeSession(s)).id;
        },
        cleanup: async () => {
          await sources.close();
          await rm(home, { recursive: true, force: true });
        },
      };
    },
    opts,
  );
}

// Claude Code records tokens, not cost.
describeOverAgent('claude', { noCost: true });
// pi records cost and advisors: the usage totals compare them through this driver too.
describeOverAgent('pi', {});
