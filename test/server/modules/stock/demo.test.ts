import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { seedDemo } from '../../../../server/demo/seed.js';
import { DEMO_RECIPES } from '../../../../server/demo/stock.js';

describe('demo restaurant: stock', () => {
  it('has locations, ingredients with recipes for the menu, and movements that agree with the sales', { timeout: 180_000 }, async () => {
    vi.stubEnv('DEMO_HISTORY_WEEKS', '1');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTestApp();
    const demo = await seedDemo(t);
    const tenantId = demo.tenant.id;
    const { stock, menu, orders } = t.services;

    const locations = await stock.listLocations(tenantId);
    expect(locations.map((l) => [l.name, l.is_default])).toEqual([['Droge voorraad', false], ['Keuken', true], ['Koelcel', false], ['Vriezer', false]]);
    const products = await menu.listProducts(tenantId);
    const dishes = products.filter((p) => p.on_menu);
    const ingredients = products.filter((p) => !p.on_menu);
    expect(ingredients.length).toBeGreaterThanOrEqual(25);
    // Every dish of the menu has a recipe; ingredients stay off the staff menu.
    for (const d of dishes) expect((await stock.getRecipe(tenantId, d.id)).ingredients.length, d.name).toBeGreaterThan(0);
    expect(Object.keys(DEMO_RECIPES).sort()).toEqual(dishes.map((d) => d.name).sort());
    const staffMenu = (await menu.staffMenu(tenantId)).categories.flatMap((c) => c.products.map((p) => p.name));
    expect(staffMenu.some((n) => ingredients.some((i) => i.name === n))).toBe(false);

    // The sales in the ledger are exactly the completed orders' recipes.
    const recipes = new Map<string, Array<{ product_id: string; quantity: number }>>();
    for (const d of dishes) recipes.set(d.id, (await stock.getRecipe(tenantId, d.id)).ingredients);
    const expected = new Map<string, number>();
    const done = await orders.list(tenantId, { statuses: ['completed'] }, 200, 0);
    let all = done.data;
    for (let offset = 200; offset < done.total; offset += 200) all = all.concat((await orders.list(tenantId, { statuses: ['completed'] }, 200, offset)).data);
    expect(all.length).toBeGreaterThan(50);
    // Options with an ingredient (the burger's extras, the steak's sauce) are sales too; voided units are not.
    const optionIngredient = new Map<string, { product_id: string; quantity: number }>();
    for (const g of await menu.listGroups(tenantId)) for (const o of g.options) if (o.ingredient_product_id) optionIngredient.set(o.id, { product_id: o.ingredient_product_id, quantity: o.ingredient_quantity! });
    const add = (productId: string, quantity: number) => expected.set(productId, Math.round((expected.get(productId) ?? 0) * 1000 + quantity * 1000) / 1000);
    let withOptions = 0;
    for (const o of all) {
      for (const i of o.items) {
        const served = i.quantity - i.voided_quantity;
        for (const l of recipes.get(i.product_id) ?? []) add(l.product_id, l.quantity * served);
        for (const m of i.modifiers) {
          const l = optionIngredient.get(m.option_id);
          if (l) add(l.product_id, l.quantity * m.quantity * served);
          if (l) withOptions++;
        }
      }
    }
    expect(withOptions).toBeGreaterThan(0);
    const sales = await t.handle.db.selectFrom('stock_movements').select(['product_id', 'quantity_milli', 'ref_id', 'created_at']).where('tenant_id', '=', tenantId).where('source', '=', 'sale').execute();
    const booked = new Map<string, number>();
    for (const s of sales) booked.set(s.product_id, (booked.get(s.product_id) ?? 0) - Number(s.quantity_milli));
    expect(new Map([...booked].map(([k, v]) => [k, v / 1000]))).toEqual(expected);
    const completedAt = new Map(all.map((o) => [o.id, o.updated_at]));
    for (const s of sales) expect(s.created_at).toBe(completedAt.get(s.ref_id!));

    // The web orders of the history were picked up (completed, their sales booked above): nothing of an
    // earlier day is left open, so the kitchen board opens on tonight's orders only (docs/kitchen.md).
    const web = await orders.list(tenantId, { source: 'web' }, 200, 0);
    expect(web.data.filter((o) => o.status === 'completed').length).toBeGreaterThan(5);
    const recent = t.clock.now().getTime() - 3 * 3_600_000; // tonight's (only a day boundary within the last hours could put them on the list)
    expect((await orders.unfinished(tenantId)).filter((o) => Date.parse(o.created_at) < recent)).toEqual([]);
    expect((await orders.live(tenantId)).some((o) => o.source === 'web' && o.payment_status === 'paid')).toBe(true);

    // Deliveries, transfers and counts too; the levels are the ledger's; the purchase advice has something to say.
    const types = await t.handle.db.selectFrom('stock_movements').select('type').distinct().where('tenant_id', '=', tenantId).execute();
    expect(types.map((x) => x.type).sort()).toEqual(['ADJUSTMENT', 'INTAKE', 'REMOVAL', 'TRANSFER_IN', 'TRANSFER_OUT']);
    expect((await stock.verify({ tenantId, repair: false })).differences).toEqual([]);
    expect((await stock.purchaseList(tenantId)).data.map((i) => i.name)).toEqual(expect.arrayContaining(['Zalmfilet', 'Slagroom']));
    const suggestion = await stock.suggest(tenantId, { lookback: 28, lead_days: 2 });
    expect(suggestion.data.length).toBeGreaterThan(5);
    expect(suggestion.data.every((s) => s.consumption.total > 0 && s.quantity_to_order > 0)).toBe(true);
    expect(suggestion.data.filter((s) => s.consumption.sales > 0).length).toBeGreaterThan(5);
    expect(demo.counts).toMatchObject({ locations: 4, ingredients: ingredients.length, recipes: dishes.length });

    // Issue 26: stock flows as in a kitchen: deliveries into the stores, transfers to the kitchen,
    // sales and waste from the kitchen; no level anywhere below zero after the whole demo.
    const levels = (await stock.list(tenantId)).data;
    const below = levels.flatMap((i) => i.locations.filter((l) => l.quantity < 0).map((l) => `${i.name} @ ${l.name}: ${l.quantity}`));
    expect(below).toEqual([]);
    const kitchen = locations.find((l) => l.is_default)!.id;
    const intakes = await t.handle.db.selectFrom('stock_movements').select('location_id').distinct().where('tenant_id', '=', tenantId).where('type', '=', 'INTAKE').execute();
    expect(intakes.map((m) => m.location_id)).not.toContain(kitchen);
    const fromKitchen = await t.handle.db.selectFrom('stock_movements').select('location_id').distinct().where('tenant_id', '=', tenantId).where('source', 'in', ['sale', 'waste']).execute();
    expect(fromKitchen.map((m) => m.location_id)).toEqual([kitchen]);
    // A dish's cost is what its recipe costs (menu engineering's margins use it).
    for (const d of dishes) expect(d.cost_cents, d.name).toBe(await stock.recipeCost(tenantId, d.id));
  });
});
