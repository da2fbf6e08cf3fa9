import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { lane } from './db.js';

/**
 * Browser tests (ARCHITECTURE §7): Debian's Chromium (/usr/bin/chromium) driven by playwright-core,
 * never a bundled browser download. They run in the sqlite lane (the database is not the point) and
 * fail loudly under CI when Chromium is missing (.ci/run installs it).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Screenshots for a person to look at. */
export const SHOT_DIR = process.env.UI_SHOT_DIR ?? path.join(tmpdir(), 'staff-app-shots');

/** `describe` for a browser suite: runs it where it can, otherwise says loudly why not (and fails under CI). */
export function describeBrowser(name: string, body: () => void): void {
  if (lane !== 'sqlite') {
    describe(name, () => {
      it.skip('SKIPPED in the postgres lane: browser tests run in the sqlite lane only (the database is not the point)', () => {});
    });
  } else if (!haveChromium) {
    describe(name, () => {
      if (process.env.CI) {
        it('Chromium is required under CI', () => {
          throw new Error(`Chromium not installed at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium); .ci/run does this.`);
        });
      } else {
        console.warn(`\n!! SKIPPED: Chromium not installed at ${CHROMIUM} — '${name}' did not run.\n`);
        it.skip(`SKIPPED: Chromium not installed at ${CHROMIUM}`, () => {});
      }
    });
  } else {
    describe(name, () => {
      // Every page runs under the server's Content-Security-Policy (issue 28 point 6): a test in which
      // Chromium refused a script, style, image or connection because of it fails.
      afterEach(() => {
        const refused = cspViolations.splice(0);
        expect(refused, 'Content-Security-Policy violations').toEqual([]);
      });
      body();
    });
  }
}

/** What Chromium reported as refused by a Content-Security-Policy since the last test ended. */
export const cspViolations: string[] = [];

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  mkdirSync(SHOT_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 });
}

/**
 * A fresh device (own cookies) at a viewport; every request to anything but this machine's server is
 * aborted and recorded in `external` (the apps load nothing from outside).
 */
export async function device(browser: Browser, opts: { width: number; height: number; touch?: boolean; external?: string[]; contexts?: BrowserContext[]; timezoneId?: string }): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: opts.width, height: opts.height }, hasTouch: opts.touch ?? true, locale: 'nl-NL', ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}) });
  opts.contexts?.push(ctx);
  const page = await ctx.newPage();
  page.on('pageerror', (err) => console.error('pageerror:', err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) cspViolations.push(`${page.url()}: ${msg.text()}`);
  });
  await page.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
    opts.external?.push(route.request().url());
    return route.abort();
  });
  return page;
}

/**
 * The closing check of a browser file on a started restaurant (test/helpers/ui-restaurant.ts): after
 * its tests, close it; then no page asked anything of another host and no page threw. `get` is read
 * when the file ends (the restaurant is made in its beforeAll).
 */
export function closeAfterAll(get: () => { close(): Promise<void>; external: string[]; pageErrors: string[] } | undefined): void {
  afterAll(async () => {
    const r = get();
    await r?.close();
    expect(r?.external ?? []).toEqual([]);
    expect(r?.pageErrors ?? []).toEqual([]);
  }, 60_000);
}

export const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOT_DIR, `${name}.png`) });

/** One accessibility finding of axe-core that a person would hit: its rule, impact and where. */
export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

let axeSource: string | undefined;
/**
 * Runs axe-core (the well-kept checker, injected from node_modules) on the page as it is now and
 * returns the critical and serious violations (issue 26: there must be none).
 */
export async function axeCheck(page: Page): Promise<AxeFinding[]> {
  if (axeSource === undefined) {
    const { createRequire } = await import('node:module');
    const { readFileSync } = await import('node:fs');
    axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  }
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (no inline scripts) stays as it is.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }> }> } }).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, nodes: v.nodes.slice(0, 5).map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`.slice(0, 300)) }));
  });
  return violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
}
