import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';

export const SCREENSHOTS = join(__dirname, '..', '..', '..', '..', '..', 'artifacts', 'screenshots');

export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // --no-sandbox: CI containers run as root, where Chromium's own sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export async function signIn(page: Page, baseUrl: string, token: string, path = '/'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('connection').and(page.locator('[data-state="live"]')).waitFor();
}

/** axe-core's serious and critical findings on the page as it is now (rule id: nodes). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then(({ violations }) =>
    violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`)) as Array<{ id: string; impact: string | null; nodes: string[] }>;
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.join(', ')}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
