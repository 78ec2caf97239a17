// Accessibility checks with axe-core in the page under test. The pages' CSP allows no injected
// script, so the context that runs the check is opened with `bypassCSP`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { screenshot } from './browser.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** The serious and critical axe violations of the page as it is now, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export const WIDTHS = [390, 1280] as const;

/**
 * The page as it is now on a phone and on a desktop: its serious and critical axe violations at
 * each width (prefixed with the width), and a screenshot of each, `<name>-<width>.png`.
 */
export async function atBothWidths(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    found.push(...(await seriousViolations(page)).map((v) => `${width}px: ${v}`));
    await screenshot(page, `${name}-${width}`);
  }
  return found;
}
