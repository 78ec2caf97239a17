// Headless Debian Chromium through playwright-core (no browser download). Screenshots go to
// test-output/screenshots for a person to look at.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'screenshots');

export function whyNoBrowser(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium)`;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`    screenshot: ${path}`);
  return path;
}
