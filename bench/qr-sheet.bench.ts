/**
 * The admin's printable QR sheet (issue 28 point 10): 24 tables, one sheet alone on a cold cache,
 * eight at once on a cold cache (they share one rendering per code), and eight at once warm. The
 * baseline in the same run renders the same 24 codes directly with `qrcode` (what every request
 * used to do). In-process (inject), on an in-memory SQLite database. Not part of npm test.
 *
 *   npx tsx bench/qr-sheet.bench.ts
 */
import QRCode from 'qrcode';
import { loadConfig } from '../server/config.js';
import { createRuntime } from '../server/runtime.js';

const TABLES = 24;

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const config = loadConfig({ ROLE: 'local', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/bench-qr', RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000' });
const fresh = async () => {
  const rt = await createRuntime(config, { db: { sqliteFile: ':memory:' } });
  const { tenant } = await rt.services.tenants.create({ slug: 'bench', name: 'Bistro Bench', admin_email: 'a@bench.test', admin_password: 'een-lang-wachtwoord' });
  const login = await rt.app.inject({ method: 'POST', url: '/api/v1/auth/admin-login', payload: { slug: 'bench', email: 'a@bench.test', password: 'een-lang-wachtwoord' } });
  const cookie = `ck_token=${login.cookies.find((c) => c.name === 'ck_token')!.value}`;
  const zone = await rt.services.floor.createZone(tenant.id, { name: 'Binnen' });
  for (let i = 1; i <= TABLES; i++) await rt.services.floor.createTable(tenant.id, { zone_id: zone.id, name: `${i}`, seats: 4, x: 10 * i, y: 10 });
  const sheet = async () => {
    const res = await rt.app.inject({ method: 'GET', url: '/api/v1/floorplan/qr-sheet', headers: { cookie } });
    const cards = (res.body.match(/<figure class="card"/g) ?? []).length;
    if (res.statusCode !== 200 || cards !== TABLES) throw new Error(`sheet: ${res.statusCode}, ${cards} codes: ${res.body.slice(0, 200)}`);
    return res;
  };
  return { rt, sheet };
};

const renderAll = (run: number) => timed(() => Promise.all(Array.from({ length: TABLES }, (_, i) => QRCode.toDataURL(`http://kassa.local:8080/g/bench/tafel/${run}-${i}`, { margin: 2, width: 360, errorCorrectionLevel: 'M' }))));
const firstBaseline = await renderAll(0); // includes loading and compiling qrcode's code
const baseline = await renderAll(1);
const a = await fresh();
const coldOne = await timed(a.sheet);
const warmOne = await timed(a.sheet);
const warmEight = await timed(() => Promise.all(Array.from({ length: 8 }, a.sheet)));
await a.rt.close();
const b = await fresh();
const coldEight = await timed(() => Promise.all(Array.from({ length: 8 }, b.sheet)));
await b.rt.close();
const ms = (n: number) => `${n.toFixed(0)} ms`;
console.log(`QR sheet, ${TABLES} tables`);
console.log(`baseline: rendering the ${TABLES} codes with qrcode (what each request did): first ${ms(firstBaseline)}, then ${ms(baseline)} (×8 at once ≈ ${ms(8 * baseline)} of CPU)`);
console.log(`one sheet, cold cache: ${ms(coldOne)}; one sheet, warm: ${ms(warmOne)}`);
console.log(`eight sheets at once, cold cache: ${ms(coldEight)}; eight at once, warm: ${ms(warmEight)}`);
