import { existsSync } from 'node:fs';

/**
 * The export as PDF (GET /haccp/export?format=pdf): the printable page rendered by a headless
 * Chromium driven by playwright-core. Debian's /usr/bin/chromium (or CHROMIUM_PATH); never a
 * browser download. Where no Chromium is installed (an appliance without it), the route answers 501
 * with a Dutch message pointing at the printable page (docs/haccp.md).
 */
export interface PdfRenderer {
  /** Whether a browser is there to render with. */
  available(): boolean;
  render(html: string): Promise<Buffer>;
}

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function chromiumPdfRenderer(executablePath: string = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM): PdfRenderer {
  // One render at a time: a browser is heavy, and exports are rare.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    available: () => existsSync(executablePath),
    render(html: string): Promise<Buffer> {
      const job = queue.then(async () => {
        const { chromium } = await import('playwright-core');
        const browser = await chromium.launch({ executablePath, headless: true, args: ARGS, timeout: 30_000 });
        try {
          const page = await browser.newPage();
          // The page is self-contained; nothing may be fetched from elsewhere.
          await page.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
          await page.setContent(html, { waitUntil: 'load', timeout: 30_000 });
          return await page.pdf({ format: 'A4', printBackground: true, margin: { top: '14mm', bottom: '14mm', left: '12mm', right: '12mm' } });
        } finally {
          await browser.close();
        }
      });
      queue = job.catch(() => {});
      return job;
    },
  };
}
