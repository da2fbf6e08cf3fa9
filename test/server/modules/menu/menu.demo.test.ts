import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';
import { seedDemo } from '../../../../server/demo/seed.js';
import { INGREDIENTS } from '../../../../server/demo/stock.js';
import { ALLERGENS } from '../../../../server/modules/menu/menu.schemas.js';

/** Issue 23's demo: choices on the steak and the burger, allergens everywhere, courses and stations, tonight's tables. */
describe('demo restaurant: menu depth (server/demo/menu.ts)', () => {
  it('the steak asks sauce and doneness, the burger offers extras with ingredients, every ingredient carries its allergens, courses and stations are set, tonight has seats, held mains and a void', { timeout: 180_000 }, async () => {
    vi.stubEnv('DEMO_HISTORY_WEEKS', '1');
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const t = await createTestApp();
    const demo = await seedDemo(t);
    const tenantId = demo.tenant.id;
    const { menu, orders } = t.services;

    // Choices: forced sauce and doneness on the steak, optional extras (each with an ingredient and a price) on the burger.
    const groups = await menu.listGroups(tenantId);
    const byName = new Map(groups.map((g) => [g.name, g]));
    expect(byName.get('Saus (kies 1)')).toMatchObject({ min_select: 1, max_select: 1 });
    expect(byName.get('Saus (kies 1)')!.options.map((o) => o.name)).toEqual(['Stroganoffsaus', 'Pepersaus']);
    expect(byName.get('Bakwijze')).toMatchObject({ min_select: 1, max_select: 1 });
    expect(byName.get('Bakwijze')!.options.map((o) => o.name)).toEqual(['Rare', 'Medium', 'Doorbakken']);
    const extras = byName.get("Extra's")!;
    expect(extras).toMatchObject({ min_select: 0, max_select: 5 });
    expect(extras.options.map((o) => o.name)).toEqual(expect.arrayContaining(['Extra bacon', 'Extra kaas', 'Gebakken ei']));
    for (const o of extras.options) {
      expect(o.price_delta_cents, o.name).toBeGreaterThan(0);
      expect(o.ingredient_product_id, o.name).not.toBeNull();
      expect(o.ingredient_quantity, o.name).toBeGreaterThan(0);
    }
    expect(extras.options.find((o) => o.name === 'Extra kaas')!.allergens).toEqual(['milk']);
    expect(extras.options.find((o) => o.name === 'Gebakken ei')!.allergens).toEqual(['eggs']);
    const staffMenu = (await menu.staffMenu(tenantId)).categories;
    const dish = (name: string) => staffMenu.flatMap((c) => c.products).find((p) => p.name === name)!;
    expect(dish('Biefstuk met friet').modifier_groups.map((g) => [g.name, g.min_select, g.max_select])).toEqual([['Saus (kies 1)', 1, 1], ['Bakwijze', 1, 1]]);
    expect(dish('Burger De Gouden Lepel').modifier_groups.map((g) => g.name)).toEqual(["Extra's"]);

    // Every ingredient carries its allergens as listed (the 14 codes only); every dish shows its recipe's.
    const products = await menu.listProducts(tenantId);
    for (const [name, , , , allergens] of INGREDIENTS) {
      const p = products.find((x) => x.name === name && !x.on_menu)!;
      expect(p.own_allergens, name).toEqual(ALLERGENS.filter((a) => allergens.includes(a)));
    }
    expect(dish('Biefstuk met friet').allergens).toEqual(['milk']);
    expect(dish('Burger De Gouden Lepel').allergens).toEqual(['gluten', 'milk', 'sesame']);
    expect(dish('Kipsaté').allergens).toEqual(['peanuts', 'soybeans']);
    expect(dish('Gegrilde zalm').allergens).toEqual(['fish', 'milk']);
    expect(dish('Geitenkaas salade').allergens).toEqual(['nuts', 'milk']);
    expect(dish('Geitenkaas salade').dietary).toEqual(['vegetarian']);
    expect(dish('Heineken van de tap').allergens).toEqual(['gluten']);
    const withAllergens = staffMenu.flatMap((c) => c.products).filter((p) => p.allergens.length > 0).length;
    expect(withAllergens).toBeGreaterThanOrEqual(18);

    // Courses and stations per category; a line's course comes from its category.
    const categories = await menu.listCategories(tenantId);
    expect(categories.map((c) => [c.name, c.course, c.station])).toEqual([
      ['Voorgerechten', 1, 'keuken'],
      ['Hoofdgerechten', 2, 'keuken'],
      ['Bijgerechten', 2, 'keuken'],
      ['Desserts', 3, 'keuken'],
      ['Dranken', null, 'bar'],
    ]);
    expect([dish('Carpaccio van runderhaas').course, dish('Biefstuk met friet').course, dish('Dame blanche').course, dish('Cola').course]).toEqual([1, 2, 3, 1]);

    // Tonight: the first table has the steak (pepper sauce, medium) on seat 1 and the burger with two extras on seat 2, held as course 2.
    const live = await orders.live(tenantId);
    const first = live.find((o) => o.source === 'pos' && o.items.some((i) => i.name === 'Biefstuk met friet' && i.modifiers.map((m) => m.name).join() === 'Pepersaus,Medium'))!;
    expect(first).toBeDefined();
    expect(first.status).toBe('new');
    const steak = first.items.find((i) => i.name === 'Biefstuk met friet')!;
    const burger = first.items.find((i) => i.name === 'Burger De Gouden Lepel')!;
    expect(steak).toMatchObject({ seat: 1, course: 2, held: true, fired_at: null, unit_price_cents: 2450 });
    expect(burger).toMatchObject({ seat: 2, course: 2, held: true, unit_price_cents: 1795 + 150 + 100 });
    expect(burger.modifiers.map((m) => m.name)).toEqual(['Extra bacon', 'Extra kaas']);
    expect(first.items.find((i) => i.course === 1 && i.seat === 1)).toBeDefined(); // the starter goes with the order
    // Orders being prepared have had their mains fired; a drink keyed in once too often was voided.
    const fired = live.filter((o) => o.status === 'preparing' || o.status === 'ready');
    expect(fired.length).toBeGreaterThan(0);
    for (const o of fired) for (const i of o.items) expect(i.held, `${o.number} ${i.name}`).toBe(false);
    const voided = live.flatMap((o) => o.items).filter((i) => i.voided_quantity > 0);
    expect(voided).toHaveLength(1);
    expect(voided[0]!.total_cents).toBe(voided[0]!.unit_price_cents * (voided[0]!.quantity - 1));
    const log = await orders.courseLog(tenantId, live.find((o) => o.items.some((i) => i.voided_quantity > 0))!.id);
    expect(log.voids.map((v) => [v.quantity, v.reason])).toEqual([[1, 'Verkeerd aangeslagen']]);

    // The bar's board has only drinks; the kitchen's has no drinks.
    const drinks = new Set(staffMenu.find((c) => c.name === 'Dranken')!.products.map((p) => p.id));
    const bar = await orders.live(tenantId, 'bar');
    expect(bar.length).toBeGreaterThan(0);
    for (const o of bar) for (const i of o.items) expect(drinks.has(i.product_id), i.name).toBe(true);
    for (const o of await orders.live(tenantId, 'keuken')) for (const i of o.items) expect(drinks.has(i.product_id), i.name).toBe(false);

    // History: mains with their forced choices on seats, fired as course 2.
    const done = (await orders.list(tenantId, { statuses: ['completed'] }, 200, 0)).data;
    const steaks = done.flatMap((o) => o.items).filter((i) => i.name === 'Biefstuk met friet');
    expect(steaks.length).toBeGreaterThan(0);
    for (const i of steaks) expect(i.modifiers.map((m) => m.group_name).sort()).toEqual(['Bakwijze', 'Saus (kies 1)']);
    expect(done.flatMap((o) => o.items).filter((i) => i.course === 2).every((i) => i.fired_at !== null)).toBe(true);
    expect(demo.counts.modifier_groups).toBe(3);
  });
});
