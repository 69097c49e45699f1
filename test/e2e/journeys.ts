/**
 * Steps both viewer suites walk (the in-memory store served by createWebApp, and `threadbase ui` on
 * the SQLite index after a real sync), so each asserts the same journey the same way.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ALT_LEAF } from './fixtures.js';

/**
 * Opens the parser session at its other branch (ALT_LEAF), continues it in pi and checks the pi
 * session written under `home`: the picked branch ("state machine"), not the current one ("red block").
 */
export async function continueAltBranchInPi(
  page: Page,
  sessionUrl: string,
  home: string,
): Promise<{ command: string; out: string; path: string }> {
  await page.goto(`${sessionUrl}?leaf=${ALT_LEAF}`);
  await page.waitForSelector('#continue-target');
  expect(await page.locator('#continue-target option').allTextContents()).toContain('pi');
  await page.selectOption('#continue-target', 'pi');
  await page.click('#continue-button');
  await page.waitForSelector('#resume-command');
  const command = (await page.locator('#resume-command').textContent()) ?? '';
  const out = (await page.locator('#continue-out').textContent()) ?? '';
  expect(command).toMatch(/\bpi\b/);
  const path = command.match(/--session '?(\/[^' ]+\.jsonl)'?$/)?.[1] ?? out.match(/ at (\S+\.jsonl)/)?.[1];
  expect(path, `${command}\n${out}`).toBeTruthy();
  expect(path?.startsWith(home)).toBe(true);
  expect(existsSync(path as string)).toBe(true);
  const text = readFileSync(path as string, 'utf8');
  expect(text).toContain('state machine');
  expect(text).not.toContain('red block');
  return { command, out, path: path as string };
}

/** Opens the stats view and gives the agents its agent chart names. */
export async function openStats(page: Page, appUrl: string): Promise<string[]> {
  await page.goto(`${appUrl}#/stats`);
  await page.waitForSelector('svg.time-chart rect.bar');
  return page.locator('svg.bar-chart').nth(2).locator('text.label').allTextContents();
}
