import { describe, expect, it } from 'vitest';
import { saleMovementId } from '../../server/modules/stock/stock.rules.js';
import { quiesce, replicatedState, twoNodes } from './harness.js';

/**
 * An option's ingredient across sync (issue 23, CONTRACT §17, docs/menu.md "Stock"): booked when the
 * order completes, like a recipe, once per order and ingredient, also when both sides of an outage
 * complete the same order; voided units book nothing on either side.
 */
describe('sync: stock for options with an ingredient', () => {
  it('an order completed on both sides of an outage books its options’ ingredients once, with the recipe’s, leaving voided units out', async () => {
    const { cloud, tenant, appliance, transport } = await twoNodes();
    const { menu, stock } = cloud.services;
    const cheese = await menu.createProduct(tenant.id, { name: 'Kaas', price_cents: 0, on_menu: false, unit: 'kg', allergens: ['milk'] });
    const bacon = await menu.createProduct(tenant.id, { name: 'Spek', price_cents: 0, on_menu: false, unit: 'kg' });
    const extras = await menu.createGroup(tenant.id, {
      name: "Extra's",
      min_select: 0,
      max_select: 5,
      options: [
        { name: 'Extra kaas', price_delta_cents: 100, ingredient_product_id: cheese.id, ingredient_quantity: 0.03 },
        { name: 'Spek', price_delta_cents: 200, ingredient_product_id: bacon.id, ingredient_quantity: 0.05 },
      ],
    });
    const burger = await menu.createProduct(tenant.id, { name: 'Burger', price_cents: 1450, modifier_group_ids: [extras.id] });
    // The recipe uses cheese too: the option's cheese adds to the same sale movement.
    await stock.putRecipe(tenant.id, burger.id, { ingredients: [{ product_id: cheese.id, quantity: 0.02 }] });
    await quiesce(appliance);

    const actor = { tenantId: tenant.id, userId: null, via: 'pos' as const };
    const kaas = extras.options.find((o) => o.name === 'Extra kaas')!.id;
    const spek = extras.options.find((o) => o.name === 'Spek')!.id;
    const { order } = await appliance.services.orders.create(actor, {
      items: [{ product_id: burger.id, quantity: 4, modifiers: [{ option_id: kaas, quantity: 2 }, { option_id: spek, quantity: 1 }] }],
    });
    expect(order.items[0]).toMatchObject({ unit_price_cents: 1450 + 2 * 100 + 200, allergens: ['milk'] });
    await appliance.services.orders.voidItem(actor, order.id, order.items[0]!.id, { quantity: 1, reason: 'Verkeerd aangeslagen' });
    await quiesce(appliance);

    // An outage: the kitchen completes it on the appliance, the cloud (an admin at home) completes it too.
    transport.offline = true;
    await appliance.services.orders.setStatus(actor, order.id, 'ready');
    await appliance.services.orders.setStatus(actor, order.id, 'completed');
    await cloud.services.orders.setStatus(actor, order.id, 'completed');
    transport.offline = false;
    await quiesce(appliance);

    // 3 units served (one voided): cheese 3 × (0.02 recipe + 2 × 0.03 option) = 0.24 kg, bacon 3 × 0.05 = 0.15 kg; one movement each, on both sides.
    for (const side of [cloud, appliance]) {
      const sales = await side.handle.db.selectFrom('stock_movements').select(['id', 'product_id', 'quantity_milli']).where('tenant_id', '=', tenant.id).where('source', '=', 'sale').where('ref_id', '=', order.id).orderBy('product_id').execute();
      expect(sales.map((m) => [m.id, m.product_id, Number(m.quantity_milli)]).sort()).toEqual(
        [
          [saleMovementId(order.id, cheese.id), cheese.id, -240],
          [saleMovementId(order.id, bacon.id), bacon.id, -150],
        ].sort(),
      );
      expect((await side.services.orders.get(tenant.id, order.id)).status).toBe('completed');
    }
    expect(await replicatedState(appliance, tenant.id)).toEqual(await replicatedState(cloud, tenant.id));
  });
});
