/**
 * The guest menu page on a phone (issue 15): bytes transferred and time until a guest can add a dish,
 * on loopback and on an emulated poor mobile connection (Chromium's network emulation: 300 ms
 * latency, 750 kbit/s down, 250 kbit/s up). Baseline in the same run: the staff app's login page
 * (the other page this server sends to a fresh device). Every load is in a fresh browser context
 * (cold cache). Not part of npm test; needs Debian's Chromium at /usr/bin/chromium.
 *
 *   npx tsx bench/guest-page.bench.ts          # BENCH_GUEST_RUNS=7 BENCH_GUEST_SLOW_RUNS=3
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { loadConfig } from '../server/config.js';
import { createRuntime } from '../server/runtime.js';
import { machine, percentile, table } from './lib/format.js';

const RUNS = Number(process.env.BENCH_GUEST_RUNS ?? 7);
const SLOW_RUNS = Number(process.env.BENCH_GUEST_SLOW_RUNS ?? 3);
const SLOW = { offline: false, latency: 300, downloadThroughput: (750 * 1024) / 8, uploadThroughput: (250 * 1024) / 8 };

interface Load {
  bytes: number;
  requests: number;
  ms: number;
}

async function load(browser: Browser, url: string, ready: string, slow: boolean): Promise<Load> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  if (slow) await cdp.send('Network.emulateNetworkConditions', SLOW);
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => {
    bytes += e.encodedDataLength;
    requests += 1;
  });
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector(ready, { timeout: 60_000 });
  const ms = Date.now() - started;
  await page.waitForLoadState('networkidle');
  await ctx.close();
  return { bytes, requests, ms };
}

export async function runGuestPageBench() {
  const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: path.join(tmpdir(), `bench-guest-${Date.now()}`), PORT: '0', HOST: '127.0.0.1' });
  const rt = await createRuntime(config);
  const { tenant } = await rt.services.tenants.create({ slug: 'bench', name: 'Bistro Bench', admin_email: 'a@bench.test', admin_password: 'een-lang-wachtwoord' });
  // A realistic menu: 6 categories, 30 dishes with descriptions.
  for (let c = 0; c < 6; c++) {
    const cat = await rt.services.menu.createCategory(tenant.id, { name: `Categorie ${c + 1}`, position: c });
    for (let p = 0; p < 5; p++) {
      await rt.services.menu.createProduct(tenant.id, { name: `Gerecht ${c + 1}.${p + 1}`, description: 'Met seizoensgroenten, huisgemaakte saus en vers brood', price_cents: 850 + 150 * p, category_id: cat.id });
    }
  }
  await rt.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = rt.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${addr.port}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const rows: Array<{ page: string; network: string; loads: Load[] }> = [];
  try {
    for (const [network, runs, slow] of [['loopback', RUNS, false], ['slow mobile', SLOW_RUNS, true]] as const) {
      for (const [page, url, ready] of [['guest menu /g/bench/', `${base}/g/bench/`, '.dish .add'], ['baseline: staff login /app/', `${base}/app/`, '#pin-submit']] as const) {
        const loads: Load[] = [];
        for (let i = 0; i < runs; i++) loads.push(await load(browser, url, ready, slow));
        rows.push({ page, network, loads });
      }
    }
  } finally {
    await browser.close();
    await rt.close();
  }
  return rows;
}

export function guestPageReport(rows: Awaited<ReturnType<typeof runGuestPageBench>>): string {
  const med = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  const baseline = (network: string) => rows.find((r) => r.network === network && r.page.startsWith('baseline'))!;
  return [
    `guest menu page (390×844, cold cache each load) — ${machine()}`,
    table([
      ['page', 'network', 'loads', 'KiB (median)', 'requests', 'ready ms p50', 'ready ms max', 'time vs baseline'],
      ...rows.map((r) => [
        r.page,
        r.network,
        String(r.loads.length),
        (med(r.loads.map((l) => l.bytes)) / 1024).toFixed(1),
        String(med(r.loads.map((l) => l.requests))),
        String(Math.round(med(r.loads.map((l) => l.ms)))),
        String(Math.max(...r.loads.map((l) => l.ms))),
        `${(med(r.loads.map((l) => l.ms)) / med(baseline(r.network).loads.map((l) => l.ms))).toFixed(2)}×`,
      ]),
    ]),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  setTimeout(() => {
    console.error('guest-page bench: time box of 10 minutes exceeded');
    process.exit(3);
  }, 10 * 60_000).unref();
  console.log(guestPageReport(await runGuestPageBench()));
  process.exit(0);
}
