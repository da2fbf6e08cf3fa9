import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../helpers/app.js';

/** Menu depth, the menu's half (CONTRACT §17, docs/menu.md): modifier groups, allergens, dietary marks, default courses. */

async function setup() {
  const t = await createTestApp();
  const r = await t.seedTenant();
  const admin = await r.adminCookie();
  const staff = await r.staffCookie();
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, payload?: object, cookie: string | null = admin) =>
    t.req({ method, url: `/api/v1${url}`, ...(cookie ? { cookie } : {}), ...(payload ? { payload } : {}) });
  const post = async <T = { id: string }>(url: string, payload: object) => {
    const res = await call('POST', url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as T;
  };
  return { t, r, admin, staff, call, post };
}

type Group = { id: string; name: string; min_select: number; max_select: number; options: Array<{ id: string; name: string; price_delta_cents: number; ingredient_product_id: string | null; ingredient_quantity: number | null; available: boolean; allergens: string[] }> };

const expectInvalid = (res: { statusCode: number; json: () => unknown }, field: string, error: string) => {
  expect(res.statusCode).toBe(400);
  const body = res.json() as { code: string; error: string; details: Array<{ field: string; error: string }> };
  expect(body.code).toBe('VALIDATION');
  expect(body.details).toContainEqual({ field, error });
  expect(body.error).toMatch(/^Ongeldige invoer: /);
};

describe('modifier groups (CONTRACT §17)', () => {
  it('an admin creates a group with options; defaults fill in; quantities and ingredient allergens are shown; staff read them', async () => {
    const { call, post, staff } = await setup();
    const cheese = await post('/products', { name: 'Kaas', price_cents: 0, on_menu: false, unit: 'kg', allergens: ['milk'] });
    const sauce = await post<Group>('/modifier-groups', { name: 'Saus (kies 1)', min_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }] });
    expect(sauce).toMatchObject({ name: 'Saus (kies 1)', min_select: 1, max_select: 1, archived_at: null });
    expect(sauce.options).toEqual([
      { id: expect.any(String), name: 'Stroganoffsaus', price_delta_cents: 0, ingredient_product_id: null, ingredient_quantity: null, available: true, allergens: [] },
      { id: expect.any(String), name: 'Pepersaus', price_delta_cents: 150, ingredient_product_id: null, ingredient_quantity: null, available: true, allergens: [] },
    ]);
    const extras = await post<Group>('/modifier-groups', { name: "Extra's", max_select: 5, options: [{ name: 'Extra kaas', price_delta_cents: 100, ingredient_product_id: cheese.id, ingredient_quantity: 0.03 }] });
    expect(extras).toMatchObject({ min_select: 0, max_select: 5, options: [{ ingredient_product_id: cheese.id, ingredient_quantity: 0.03, allergens: ['milk'] }] });

    const list = await call('GET', '/modifier-groups', undefined, staff);
    expect(list.statusCode).toBe(200);
    expect((list.json() as { data: Group[] }).data.map((g) => g.name)).toEqual(["Extra's", 'Saus (kies 1)']);
  });

  it('PATCH replaces the option list: an option given with its id keeps it, one left out is gone, a new one gets an id', async () => {
    const { call, post } = await setup();
    const g = await post<Group>('/modifier-groups', { name: 'Saus', min_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }] });
    const [strog, peper] = g.options;
    const res = await call('PATCH', `/modifier-groups/${g.id}`, { options: [{ id: peper!.id, name: 'Pepersaus', price_delta_cents: 200 }, { name: 'Champignonsaus', available: false }] });
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json() as Group;
    expect(after.options.map((o) => [o.name, o.price_delta_cents, o.available])).toEqual([
      ['Pepersaus', 200, true],
      ['Champignonsaus', 0, false],
    ]);
    expect(after.options[0]!.id).toBe(peper!.id);
    expect(after.options.map((o) => o.id)).not.toContain(strog!.id);
    // Only the name: options and limits stay.
    const renamed = (await call('PATCH', `/modifier-groups/${g.id}`, { name: 'Saus (kies 1)' })).json() as Group;
    expect(renamed).toMatchObject({ name: 'Saus (kies 1)', min_select: 1, max_select: 1 });
    expect(renamed.options).toEqual(after.options);
  });

  it('each validation case answers 400 with its Dutch message and field', async () => {
    const { call, post } = await setup();
    const other = await post<Group>('/modifier-groups', { name: 'Andere', options: [{ name: 'X' }] });
    const g = await post<Group>('/modifier-groups', { name: 'Saus', options: [{ name: 'A' }, { name: 'B' }] });
    const cases: Array<[string, string, object, string, string]> = [
      ['POST', '/modifier-groups', { name: 'S', min_select: 2, max_select: 1, options: [{ name: 'A' }, { name: 'B' }] }, 'max_select', "'max_select' moet minstens gelijk zijn aan 'min_select'."],
      ['POST', '/modifier-groups', { name: 'S', min_select: 2, max_select: 3, options: [{ name: 'A' }] }, 'min_select', "'min_select' is 2, maar de groep heeft maar 1 optie."],
      ['POST', '/modifier-groups', { name: 'S', options: [{ name: 'A', ingredient_product_id: '0190a8e2-7c1b-7000-8000-000000000001', ingredient_quantity: 1 }] }, 'options.0.ingredient_product_id', "'options.0.ingredient_product_id' verwijst naar een product dat niet bestaat."],
      ['POST', '/modifier-groups', { name: 'S', options: [{ name: 'A', ingredient_quantity: 1 }] }, 'options.0.ingredient_quantity', "'options.0.ingredient_quantity' kan alleen samen met 'ingredient_product_id'."],
      ['POST', '/modifier-groups', { name: 'S', options: [{ name: 'A', id: g.options[0]!.id }] }, 'options.0.id', "'options.0.id' kan alleen bij het wijzigen van een groep (PATCH) worden meegegeven."],
      ['PATCH', `/modifier-groups/${g.id}`, { options: [{ id: other.options[0]!.id, name: 'X' }] }, 'options.0.id', "'options.0.id' is geen optie van deze groep."],
      ['PATCH', `/modifier-groups/${g.id}`, { min_select: 3 }, 'min_select', "'min_select' is 3, maar de groep heeft maar 2 opties."],
      ['POST', '/modifier-groups', { name: 'S', options: [{ name: 'A', price_delta_cents: 100_001 }] }, 'options.0.price_delta_cents', "'options.0.price_delta_cents' mag maximaal 100000 zijn."],
      ['POST', '/modifier-groups', { name: 'S', max_select: 21, options: [] }, 'max_select', "'max_select' mag maximaal 20 zijn."],
      ['POST', '/modifier-groups', { name: 'S', max_select: 0, options: [] }, 'max_select', "'max_select' moet minimaal 1 zijn."],
    ];
    for (const [method, url, payload, field, error] of cases) expectInvalid(await call(method as 'POST', url, payload), field, error);
    // Ingredient given without a quantity.
    const beef = await post('/products', { name: 'Rund', price_cents: 0, on_menu: false });
    expectInvalid(await call('POST', '/modifier-groups', { name: 'S', options: [{ name: 'A', ingredient_product_id: beef.id }] }), 'options.0.ingredient_quantity', "'options.0.ingredient_quantity' is verplicht bij een ingrediënt.");
    // Nothing of the refused requests was stored.
    expect(((await call('GET', '/modifier-groups')).json() as { data: Group[] }).data.map((x) => x.name)).toEqual(['Andere', 'Saus']);
  });

  it('401 without a session, 403 for staff on changes, 404 for an unknown group or one of another restaurant', async () => {
    const { t, call, post, staff } = await setup();
    const g = await post<Group>('/modifier-groups', { name: 'Saus', options: [{ name: 'A' }] });
    const otherAdmin = await (await t.seedTenant()).adminCookie();
    const body = { name: 'S', options: [] };
    for (const [method, url, payload] of [
      ['GET', '/modifier-groups', undefined],
      ['POST', '/modifier-groups', body],
      ['PATCH', `/modifier-groups/${g.id}`, { name: 'X' }],
      ['DELETE', `/modifier-groups/${g.id}`, undefined],
    ] as const) {
      const res = await call(method, url, payload, null);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      if (method !== 'GET') {
        const forbidden = await call(method, url, payload, staff);
        expect(forbidden.statusCode, `${method} ${url}`).toBe(403);
        expect(forbidden.json()).toEqual({ code: 'FORBIDDEN', error: 'Je hebt geen toegang tot deze functie.' });
      }
    }
    for (const cookie of [null, otherAdmin]) {
      for (const [method, url, payload] of [
        ['PATCH', `/modifier-groups/${cookie ? g.id : '0190a8e2-7c1b-7000-8000-000000000009'}`, { name: 'X' }],
        ['DELETE', `/modifier-groups/${cookie ? g.id : '0190a8e2-7c1b-7000-8000-000000000009'}`, undefined],
      ] as const) {
        const res = await call(method, url, payload, cookie ?? undefined);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual({ code: 'NOT_FOUND', error: 'Optiegroep niet gevonden.' });
      }
    }
    // The other restaurant does not see it either.
    expect((await call('GET', '/modifier-groups', undefined, otherAdmin)).json()).toEqual({ data: [] });
  });

  it('DELETE archives: gone from the list and from the menus of products that listed it; a second DELETE is 404', async () => {
    const { call, post, staff } = await setup();
    const g = await post<Group>('/modifier-groups', { name: 'Saus', min_select: 1, options: [{ name: 'A' }] });
    await post('/products', { name: 'Biefstuk', price_cents: 2250, modifier_group_ids: [g.id] });
    expect((await call('DELETE', `/modifier-groups/${g.id}`)).statusCode).toBe(204);
    expect((await call('DELETE', `/modifier-groups/${g.id}`)).statusCode).toBe(404);
    expect(((await call('GET', '/modifier-groups')).json() as { data: Group[] }).data).toEqual([]);
    expect(((await call('GET', '/modifier-groups?include_archived=true')).json() as { data: Group[] }).data.map((x) => x.id)).toEqual([g.id]);
    const menu = (await call('GET', '/menu', undefined, staff)).json() as { categories: Array<{ products: Array<{ modifier_groups: unknown[] }> }> };
    expect(menu.categories[0]!.products[0]!.modifier_groups).toEqual([]);
  });
});

describe('products: modifier groups in order, allergens, dietary, courses', () => {
  it('a product lists its groups in order; the staff menu shows them so, with the course from the category unless the product sets one', async () => {
    const { call, post, staff } = await setup();
    const sauce = await post<Group>('/modifier-groups', { name: 'Saus', min_select: 1, options: [{ name: 'Pepersaus', price_delta_cents: 150 }] });
    const done = await post<Group>('/modifier-groups', { name: 'Garing', min_select: 1, options: [{ name: 'Medium' }] });
    const mains = await post('/categories', { name: 'Hoofdgerechten', course: 2 });
    const steak = await post<{ id: string; modifier_group_ids: string[]; course: number | null }>('/products', { name: 'Biefstuk', price_cents: 2250, category_id: mains.id, modifier_group_ids: [done.id, sauce.id] });
    expect(steak).toMatchObject({ modifier_group_ids: [done.id, sauce.id], course: null });
    await post('/products', { name: 'Dessertwijn', price_cents: 650, category_id: mains.id, course: 3 });
    await post('/products', { name: 'Brood', price_cents: 450 });
    const menu = (await call('GET', '/menu', undefined, staff)).json() as { categories: Array<{ name: string; products: Array<{ name: string; course: number; modifier_groups: Array<{ name: string; min_select: number; options: unknown[] }> }> }> };
    const products = menu.categories.flatMap((c) => c.products);
    expect(products.map((p) => [p.name, p.course])).toEqual([
      ['Biefstuk', 2],
      ['Dessertwijn', 3],
      ['Brood', 1],
    ]);
    expect(products[0]!.modifier_groups).toEqual([
      { id: done.id, name: 'Garing', min_select: 1, max_select: 1, options: [{ id: done.options[0]!.id, name: 'Medium', price_delta_cents: 0, available: true, allergens: [] }] },
      { id: sauce.id, name: 'Saus', min_select: 1, max_select: 1, options: [{ id: sauce.options[0]!.id, name: 'Pepersaus', price_delta_cents: 150, available: true, allergens: [] }] },
    ]);
    // Reordering is a PATCH with the new order.
    const res = await call('PATCH', `/products/${steak.id}`, { modifier_group_ids: [sauce.id, done.id] });
    expect(res.json()).toMatchObject({ modifier_group_ids: [sauce.id, done.id] });
  });

  it('refuses unknown, archived, repeated groups, unknown allergen and dietary codes and a course outside 1..5, in Dutch naming the field', async () => {
    const { call, post } = await setup();
    const g = await post<Group>('/modifier-groups', { name: 'Saus', options: [{ name: 'A' }] });
    const gone = await post<Group>('/modifier-groups', { name: 'Oud', options: [{ name: 'A' }] });
    await call('DELETE', `/modifier-groups/${gone.id}`);
    const p = await post('/products', { name: 'Biefstuk', price_cents: 2250 });
    const cases: Array<[object, string, string]> = [
      [{ modifier_group_ids: [g.id, '0190a8e2-7c1b-7000-8000-000000000009'] }, 'modifier_group_ids.1', "'modifier_group_ids.1' verwijst naar een optiegroep die niet bestaat."],
      [{ modifier_group_ids: [gone.id] }, 'modifier_group_ids.0', "'modifier_group_ids.0' verwijst naar een optiegroep die niet bestaat."],
      [{ modifier_group_ids: [g.id, g.id] }, 'modifier_group_ids', "'modifier_group_ids' bevat een groep twee keer."],
      [{ allergens: ['milk', 'lactose'] }, 'allergens.1', "'allergens.1' moet een van deze waarden zijn: gluten, crustaceans, eggs, fish, peanuts, nuts, soybeans, milk, celery, mustard, sesame, sulphites, lupin, molluscs."],
      [{ allergens: ['milk', 'milk'] }, 'allergens', "'allergens' bevat een code twee keer."],
      [{ dietary: ['halal'] }, 'dietary.0', "'dietary.0' moet een van deze waarden zijn: vegetarian, vegan."],
      [{ course: 6 }, 'course', "'course' mag maximaal 5 zijn."],
    ];
    for (const [payload, field, error] of cases) {
      expectInvalid(await call('PATCH', `/products/${p.id}`, payload), field, error);
      expectInvalid(await call('POST', '/products', { name: 'X', price_cents: 1, ...payload }), field, error);
    }
    expectInvalid(await call('POST', '/categories', { name: 'X', course: 0 }), 'course', "'course' moet minimaal 1 zijn.");
  });

  it("a dish's allergens are its own ∪ its recipe's ingredients'; an ingredient added to the recipe adds its allergens at once", async () => {
    const { call, post, staff } = await setup();
    const bun = await post('/products', { name: 'Broodje', price_cents: 0, on_menu: false, unit: 'stuk', allergens: ['gluten', 'sesame'] });
    const cheese = await post('/products', { name: 'Kaas', price_cents: 0, on_menu: false, unit: 'kg', allergens: ['milk'] });
    const burger = await post<{ id: string; allergens: string[] }>('/products', { name: 'Burger', price_cents: 1450, allergens: ['mustard'], dietary: [] });
    expect(burger.allergens).toEqual(['mustard']);
    expect((await call('PUT', `/recipes/${burger.id}`, { ingredients: [{ product_id: bun.id, quantity: 1 }] })).statusCode).toBe(200);
    const shown = async () => {
      const product = (await call('GET', '/products')).json() as { data: Array<{ id: string; allergens: string[]; own_allergens: string[] }> };
      const menu = (await call('GET', '/menu', undefined, staff)).json() as { categories: Array<{ products: Array<{ id: string; allergens: string[] }> }> };
      return { admin: product.data.find((x) => x.id === burger.id)!, menu: menu.categories.flatMap((c) => c.products).find((x) => x.id === burger.id)!.allergens };
    };
    let now = await shown();
    expect(now.admin).toMatchObject({ allergens: ['gluten', 'mustard', 'sesame'], own_allergens: ['mustard'] });
    expect(now.menu).toEqual(['gluten', 'mustard', 'sesame']);
    await call('PUT', `/recipes/${burger.id}`, { ingredients: [{ product_id: bun.id, quantity: 1 }, { product_id: cheese.id, quantity: 0.03 }] });
    now = await shown();
    expect(now.menu).toEqual(['gluten', 'milk', 'mustard', 'sesame']);
    // The ingredient's own allergens changed: the dish follows.
    await call('PATCH', `/products/${cheese.id}`, { allergens: ['milk', 'eggs'] });
    expect((await shown()).menu).toEqual(['gluten', 'eggs', 'milk', 'mustard', 'sesame']);
  });
});

describe('GET /public/menu/:slug and /external/menu show options and allergens', () => {
  async function guestMenu() {
    const s = await setup();
    const { post, call, r } = s;
    const cheese = await post('/products', { name: 'Kaas', price_cents: 0, on_menu: false, unit: 'kg', allergens: ['milk'] });
    const sauce = await post<Group>('/modifier-groups', {
      name: 'Saus', min_select: 1,
      options: [{ name: 'Roomsaus', ingredient_product_id: cheese.id, ingredient_quantity: 0.05 }, { name: 'Pepersaus', price_delta_cents: 150 }, { name: 'Bearnaise', available: false }],
    });
    const cheeseOnly = await post<Group>('/modifier-groups', { name: 'Kaassaus', min_select: 1, options: [{ name: 'Kaassaus', ingredient_product_id: cheese.id, ingredient_quantity: 0.05 }] });
    const steak = await post('/products', { name: 'Biefstuk', price_cents: 2250, modifier_group_ids: [sauce.id] });
    const nachos = await post('/products', { name: 'Nacho’s', price_cents: 850, modifier_group_ids: [cheeseOnly.id], dietary: ['vegetarian'] });
    const bread = await post('/products', { name: 'Brood', price_cents: 450, allergens: ['gluten'], dietary: ['vegan', 'vegetarian'] });
    return { ...s, sauce, steak, nachos, bread, call, slug: r.slug };
  }

  it('shows each dish with allergens, dietary marks and the options a guest can choose (unavailable ones left out)', async () => {
    const { call, slug, sauce, steak } = await guestMenu();
    const res = await call('GET', `/public/menu/${slug}`, undefined, null);
    expect(res.statusCode, res.body).toBe(200);
    const products = (res.json() as { categories: Array<{ products: Array<Record<string, unknown>> }> }).categories.flatMap((c) => c.products);
    expect(products.find((p) => p.id === steak.id)).toEqual({
      id: steak.id,
      name: 'Biefstuk',
      description: null,
      price_cents: 2250,
      allergens: [],
      dietary: [],
      modifier_groups: [
        {
          id: sauce.id,
          name: 'Saus',
          min_select: 1,
          max_select: 1,
          options: [
            { id: sauce.options[0]!.id, name: 'Roomsaus', price_delta_cents: 0, available: true, allergens: ['milk'] },
            { id: sauce.options[1]!.id, name: 'Pepersaus', price_delta_cents: 150, available: true, allergens: [] },
          ],
        },
      ],
    });
    expect(products.find((p) => p.name === 'Brood')).toMatchObject({ allergens: ['gluten'], dietary: ['vegan', 'vegetarian'] });
  });

  it('?exclude= leaves out dishes and options that contain an excluded allergen, and dishes whose forced choice then cannot be made', async () => {
    const { call, slug, steak } = await guestMenu();
    const names = async (q: string) => {
      const res = await call('GET', `/public/menu/${slug}${q}`, undefined, null);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { categories: Array<{ products: Array<{ id: string; name: string; modifier_groups: Array<{ options: Array<{ name: string }> }> }> }> }).categories.flatMap((c) => c.products);
    };
    expect((await names('')).map((p) => p.name)).toEqual(['Biefstuk', 'Brood', 'Nacho’s']);
    const noMilk = await names('?exclude=milk');
    expect(noMilk.map((p) => p.name)).toEqual(['Biefstuk', 'Brood']);
    expect(noMilk.find((p) => p.id === steak.id)!.modifier_groups[0]!.options.map((o) => o.name)).toEqual(['Pepersaus']);
    expect((await names('?exclude=gluten,%20milk')).map((p) => p.name)).toEqual(['Biefstuk']);
    const bad = await call('GET', `/public/menu/${slug}?exclude=milk,lactose`, undefined, null);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION', details: [{ field: 'exclude.1', error: expect.stringContaining("'exclude.1' moet een van deze waarden zijn: gluten") }] });
  });

  it('the external API menu shows options and allergens', async () => {
    const { t, r, steak, sauce, bread } = await guestMenu();
    const key = (await t.services.apiKeys.create(r.id, { name: 'partner', scopes: ['read'] }, null)).key;
    const res = await t.req({ method: 'GET', url: '/api/v1/external/menu', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode, res.body).toBe(200);
    const products = (res.json() as { categories: Array<{ products: Array<{ id: string; allergens: string[]; modifier_groups: Array<{ id: string; options: Array<{ name: string; available: boolean }> }> }> }> }).categories.flatMap((c) => c.products);
    const s = products.find((p) => p.id === steak.id)!;
    expect(s.modifier_groups.map((g) => g.id)).toEqual([sauce.id]);
    // Partners see unavailable options too, marked so.
    expect(s.modifier_groups[0]!.options.map((o) => [o.name, o.available])).toEqual([
      ['Roomsaus', true],
      ['Pepersaus', true],
      ['Bearnaise', false],
    ]);
    expect(products.find((p) => p.id === bread.id)!.allergens).toEqual(['gluten']);
  });
});
