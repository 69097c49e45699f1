/**
 * A sub-agent's work is reachable from the session that ran it: in chromium, on the sessions the
 * real agents wrote (read straight from their files), the call that ran a sub-agent carries a link
 * to the sub-agent's session, and the session's head lists the sessions started from it. Before,
 * only the child linked back to its parent: from the parent, its work was a search in the list.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { screenshot, skipBrowser, viewerOverFixtures } from '../e2e/browser.js';

/** parent, the call that ran the sub-agent, the sub-agent's session and its title, per agent */
const RUNS = [
  {
    agent: 'qwen',
    parent: '1865e916-c5ec-4265-a939-6e90168805d2',
    call: 'toolu_standin_0001',
    child: 'general-purpose-toolu_standin_0001',
    title: 'count the files',
  },
  {
    agent: 'cline',
    parent: '1795666477967_183oc',
    call: 'toolu_standin_0001',
    child: '1795666477967_183oc__agent_1795666478619_7xmhpw',
    title: 'subtask alpha',
  },
  {
    agent: 'codex',
    parent: '01a21356-25ea-7ff3-8743-7ca9d35fbc3f',
    call: 'call_spawn',
    child: '01a21356-267a-73e0-9768-3144907e69c8',
    title: 'CHILDTASK',
  },
  {
    agent: 'claude',
    parent: '0afea31a-5ccc-4b41-8d19-4c8571cb3a03',
    call: 'toolu_standin_0003',
    child: 'ac5303661b5759184',
    title: 'say hello',
    // its --fork-session fork (bcdac43d) is started from it too
    forks: ['after compact'],
  },
] as const;

describe.skipIf(skipBrowser)('sub-agent sessions in the web viewer', () => {
  const viewer = viewerOverFixtures({ prefix: 'threadbase-web-sub-agents-', fixtures: ['qwen', 'cline', 'codex', 'claude'] });

  const open = async (id: string) => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${encodeURIComponent(id)}`);
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    await page.waitForSelector('#conversation .entry');
  };

  for (const run of RUNS) {
    it(`${run.agent}: the call that ran a sub-agent links to its session, and the link opens it`, async () => {
      const { page } = viewer.browser;
      await open(run.parent);
      const call = page.locator(`details.tool[data-call-id="${run.call}"]`);
      await expect(call.count()).resolves.toBe(1);
      // the link is right under the call, in the same message
      const link = page.locator(`details.tool[data-call-id="${run.call}"] + a.sub-agent-link`);
      await expect(link.textContent()).resolves.toContain(`sub-agent session: ${run.title}`);
      await expect(link.isVisible()).resolves.toBe(true);
      // and the head lists it among the sessions started from this one
      const listed = page.locator('.session-head .children-line a');
      await expect(listed.allTextContents()).resolves.toEqual([run.title, ...('forks' in run ? run.forks : [])]);
      await expect(page.locator('.session-head .children-line').textContent()).resolves.toContain('(sub-agent)');
      await screenshot(page, `web-sub-agent-${run.agent}`);
      await link.click();
      await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, run.child);
      await page.waitForSelector('#conversation .entry');
      // the sub-agent's own turns are on screen, and its head links back to the parent
      await expect(page.locator(`.session-head a[href="#/session/${run.parent}"]`).count()).resolves.toBe(1);
      expect(viewer.browser.errors).toEqual([]);
    });
  }

  it('a session without sub-agents or forks shows no such line', async () => {
    const { page } = viewer.browser;
    await open('ee2a1197-112a-4879-a9f4-4ee94585ced0');
    await expect(page.locator('.children-line').count()).resolves.toBe(0);
    await expect(page.locator('a.sub-agent-link').count()).resolves.toBe(0);
  });
});
