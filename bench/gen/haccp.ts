/**
 * HACCP offline work for bench/sync-push-sql.ts (GEN=bench/gen/haccp.ts N=100): a checklist made in
 * the cloud and synced down, then, on the appliance, N temperature readings over ten units (the first
 * reading of each registers it), every 10th kritiek (an incident; every other one gets a corrective
 * action) and a checklist run every 20 readings: every record a link of the appliance's hash chain.
 * Prints whether both sides verify the chains alike after the push and pull.
 */
import type { GenEnv } from '../sync-push-sql.js';

export async function generate(env: GenEnv): Promise<void> {
  const { cloud, app, engine, tenantId, N } = env;
  const actor = { tenantId, userId: env.staffId };
  const list = await cloud.services.haccp.createChecklist(tenantId, { name: 'Opening', frequency: 'daily', deadline: '11:00', items: [{ label: 'Koelingen' }, { label: 'Werkbanken' }, { label: 'Handen' }] });
  await engine.syncOnce();
  const h = app.services.haccp;
  let incidents = 0;
  for (let i = 0; i < N; i++) {
    const log = await h.logTemperature(actor, { unit_name: `Koelcel ${i % 10}`, unit_type: 'koelcel', target_max: 7, temperature: i % 10 === 9 ? 11.5 : 3 + (i % 7) * 0.3 });
    if (log.incident_id && ++incidents % 2 === 1) await h.addAction(actor, log.incident_id, 'Deur dicht, producten gecontroleerd.');
    if (i % 20 === 0) await h.runChecklist(actor, list.id, { completed_items: list.items.map((x) => x.id) });
  }
  // After the bench's push and pull: both sides verify the same chains.
  const check = async () => {
    const [a, c] = [await h.verify(tenantId), await cloud.services.haccp.verify(tenantId)];
    console.log(`haccp: appliance verified ${a.verified}, cloud verified ${c.verified}, same chains ${JSON.stringify(a.chains) === JSON.stringify(c.chains)} (${a.chains.map((x) => x.records).join(', ')} records)`);
  };
  const pull = engine.pullOnce.bind(engine);
  // The bench pulls until caught up after its push; check once the last pull page is in.
  engine.pullOnce = async (...args: Parameters<typeof engine.pullOnce>) => {
    const r = await pull(...args);
    if (!r.more) await check();
    return r;
  };
}
