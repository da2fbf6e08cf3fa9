import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeCheck, closeAfterAll, describeBrowser, shot } from '../helpers/browser.js';
import { screenReady, startUiRestaurant, type UiRestaurant } from '../helpers/ui-restaurant.js';

/**
 * Issue 23's screens (CONTRACT §17) in Chromium: a manager makes a forced sauce group in the back
 * office and links it to the steak, sets allergens on an ingredient and a dish, a dish's dietary mark
 * and course; the API then has exactly that. Screenshots for a person to look at.
 */
describeBrowser('menu depth: choices, allergens and courses on the screens (issue 23)', () => {
  let r: UiRestaurant;
  beforeAll(async () => {
    r = await startUiRestaurant('menudiepte');
    r.ids.butter = (await r.api('POST', '/products', { name: 'Roomboter', price_cents: 0, cost_cents: 900, unit: 'kg', on_menu: false })).id;
  }, 120_000);
  closeAfterAll(() => r);

  const product = async (id: string) => (await r.api('GET', '/products')).data.find((p: { id: string }) => p.id === id);
  const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').replace(/\u00a0/g, ' ');

  it('a manager creates a forced sauce group with prices and an ingredient, and links it to the steak', async () => {
    const page = await r.admin(1280, 800);
    await screenReady(page, '/beheer/opties', r.base, r.slug);
    expect(await page.title()).toBe('Keuzes en opties · Brasserie De Beheerder');
    await page.click('#new-group');
    const dlg = page.locator('#group-dialog');
    await dlg.getByLabel('Naam van de groep').fill('Saus');
    await dlg.getByLabel('Minimaal te kiezen').fill('1');
    await dlg.getByLabel('Maximaal te kiezen').fill('0');
    await dlg.getByLabel('Optie 1: naam').fill('Stroganoffsaus');
    // A mistake is said beside its field, in Dutch, with the form's own label.
    await dlg.locator('[type=submit]').click();
    await expect.poll(() => text(page, '#group-dialog .field-error')).toContain('Maximaal te kiezen moet minstens 1 zijn.');
    await dlg.getByLabel('Maximaal te kiezen').fill('1');
    await page.click('#add-option');
    await dlg.getByLabel('Optie 2: naam').fill('Pepersaus');
    await dlg.locator('.option-row').nth(1).getByLabel('Meerprijs (€)').fill('1,50');
    await page.click('#add-option');
    await dlg.getByLabel('Optie 3: naam').fill('Kruidenboter');
    const third = dlg.locator('.option-row').nth(2);
    await third.getByLabel('Meerprijs (€)').fill('0,75');
    await third.getByLabel('Ingrediënt uit de voorraad').selectOption({ label: 'Roomboter (kg)' });
    // An ingredient without a quantity is refused before anything is sent.
    await dlg.locator('[type=submit]').click();
    await expect.poll(() => text(page, '#group-dialog .field-error')).toContain('Hoeveelheid per keer (kg) is verplicht.');
    await third.getByLabel('Hoeveelheid per keer (kg)').fill('0,02');
    await shot(page, 'menu-depth-group-dialog');
    await dlg.locator('[type=submit]').click();
    await page.waitForSelector('#group-dialog', { state: 'detached' });
    const row = page.locator('#groups tr[data-group="Saus"]');
    await expect.poll(() => text(page, '#groups tr[data-group="Saus"]')).toContain('Pepersaus + € 1,50');
    expect(await row.textContent()).toContain('verplicht');
    expect(await row.textContent()).toContain('kies 1');
    expect(await row.textContent()).toContain('nog bij geen gerecht');
    const [group] = (await r.api('GET', '/modifier-groups')).data;
    expect(group).toMatchObject({ name: 'Saus', min_select: 1, max_select: 1 });
    expect(group.options.map((o: any) => [o.name, o.price_delta_cents, o.ingredient_product_id, o.ingredient_quantity])).toEqual([
      ['Stroganoffsaus', 0, null, null],
      ['Pepersaus', 150, null, null],
      ['Kruidenboter', 75, r.ids.butter, 0.02],
    ]);
    r.ids.sauce = group.id;

    // Butter contains milk: set on the ingredient, it shows on every dish that uses it.
    await screenReady(page, '/beheer/menu', r.base, r.slug);
    await page.click('[data-show="ingredient"]');
    await page.click('#products-admin tr[data-product="Roomboter"] [data-action="edit"]');
    await page.locator('#product-dialog .code-checks [data-code="milk"]').check();
    await page.click('#product-dialog [type=submit]');
    await page.waitForSelector('#product-dialog', { state: 'detached' });
    expect((await product(r.ids.butter)).allergens).toEqual(['milk']);

    // The steak: mustard, its course 2, the sauce group; the option's milk shows on the group.
    await page.click('[data-show="dish"]');
    await page.click('#products-admin tr[data-product="Biefstuk"] [data-action="edit"]');
    const pd = page.locator('#product-dialog');
    await pd.locator('.code-checks [data-code="mustard"]').first().check();
    await pd.getByLabel('Gang', { exact: true }).selectOption('2');
    await pd.getByLabel('Keuzegroep toevoegen').selectOption({ label: 'Saus' });
    await page.click('#add-group');
    await expect.poll(() => text(page, '#product-groups')).toContain('1. Saus (verplicht, kies 1)');
    await shot(page, 'menu-depth-product-dialog');
    await page.click('#product-dialog [type=submit]');
    await page.waitForSelector('#product-dialog', { state: 'detached' });
    const steak = await product(r.ids.steak);
    expect(steak).toMatchObject({ modifier_group_ids: [group.id], own_allergens: ['mustard'], course: 2 });
    await expect.poll(() => text(page, '#products-admin tr[data-product="Biefstuk"]')).toContain('bevat mosterd · 1 keuzegroep');

    // The soup is vegetarian; its recipe's tomatoes bring celery once the ingredient says so.
    await r.api('PATCH', `/products/${r.ids.tomatoes}`, { allergens: ['celery'] });
    await page.reload();
    await page.waitForSelector('#products-admin tr[data-product="Tomatensoep"]');
    await page.click('#products-admin tr[data-product="Tomatensoep"] [data-action="edit"]');
    expect(await text(page, '#product-dialog')).toContain('Uit het recept komen er al bij: Selderij.');
    await page.locator('#product-dialog .code-checks [data-code="vegetarian"]').check();
    await page.click('#product-dialog [type=submit]');
    await page.waitForSelector('#product-dialog', { state: 'detached' });
    expect((await product(r.ids.soup)).dietary).toEqual(['vegetarian']);

    // The group now lists the steak; deleting it asks first and names the dish.
    await screenReady(page, '/beheer/opties', r.base, r.slug);
    await expect.poll(() => text(page, '#groups tr[data-group="Saus"] .dishes')).toBe('Biefstuk');
    expect(await text(page, '#groups tr[data-group="Saus"]')).toContain('Kruidenboter + € 0,75 · Roomboter 0,02 · Melk');
    await shot(page, 'menu-depth-groups');
    await page.click('#groups tr[data-group="Saus"] [data-action="delete"]');
    await page.waitForSelector('#confirm-dialog');
    expect(await text(page, '#confirm-dialog')).toContain('Het gerecht Biefstuk vraagt deze keuze dan niet meer.');
    await page.click('#confirm-no');
    await page.waitForSelector('#confirm-dialog', { state: 'detached' });
    expect((await r.api('GET', '/modifier-groups')).data).toHaveLength(1);
  }, 120_000);

  it('a guest on a 390×844 phone filters out milk, sees allergens in Dutch and English, and must pick a sauce before adding the steak', async () => {
    const sauce = await r.api('POST', '/modifier-groups', { name: 'Saus bij de biefstuk', min_select: 1, max_select: 1, options: [{ name: 'Pepersaus', price_delta_cents: 150 }, { name: 'Roomboter-saus', ingredient_product_id: r.ids.butter, ingredient_quantity: 0.02 }, { name: 'Chimichurri', price_delta_cents: 100 }] });
    const extras = await r.api('POST', '/modifier-groups', { name: "Extra's", min_select: 0, max_select: 2, options: [{ name: 'Gebakken ui', price_delta_cents: 100 }, { name: 'Champignons', price_delta_cents: 150 }, { name: 'Spek', price_delta_cents: 200 }] });
    await r.api('PATCH', `/products/${r.ids.butter}`, { allergens: ['milk'] });
    // The optional group comes first in the dish's order: the sheet still asks the forced one first.
    await r.api('PATCH', `/products/${r.ids.steak}`, { modifier_group_ids: [extras.id, sauce.id], allergens: ['mustard'] });
    await r.api('POST', '/products', { name: 'Kaasplankje', price_cents: 1150, allergens: ['milk', 'nuts'], dietary: ['vegetarian'] });
    await r.api('PATCH', `/products/${r.ids.soup}`, { dietary: ['vegan'] });
    const pepper = sauce.options.find((o: { name: string }) => o.name === 'Pepersaus').id;
    const onion = extras.options.find((o: { name: string }) => o.name === 'Gebakken ui').id;

    const page = await r.open(390, 844);
    await page.goto(`${r.base}/g/${r.slug}/`);
    await page.waitForSelector('#menu-page .dish[data-dish="Kaasplankje"]');
    const cheese = page.locator('.dish[data-dish="Kaasplankje"]');
    expect(await text(page, '.dish[data-dish="Kaasplankje"] .allergens')).toContain('Melk · Milk');
    expect(await text(page, '.dish[data-dish="Kaasplankje"] .allergens')).toContain('Noten · Tree nuts');
    expect(await cheese.locator('[data-diet="vegetarian"]').textContent()).toContain('Vegetarisch');
    expect(await page.locator('.dish[data-dish="Tomatensoep"] [data-diet="vegan"]').textContent()).toContain('Veganistisch');
    await shot(page, 'menu-depth-guest-menu-390');

    // Without milk: the cheese board goes, and so does the butter sauce among the steak's options.
    await page.click('#allergen-filter [data-exclude="milk"]');
    await page.waitForSelector('.dish[data-dish="Kaasplankje"]', { state: 'detached' });
    expect(await page.getAttribute('#allergen-filter [data-exclude="milk"]', 'aria-pressed')).toBe('true');
    expect(await text(page, '#filter-note')).toContain('Gerechten met melk staan er niet bij.');
    expect(await page.locator('.dish[data-dish="Tomatensoep"]').count()).toBe(1);
    await page.click('.dish[data-dish="Biefstuk"] .add');
    const sheet = page.locator('#options-sheet');
    await sheet.waitFor();
    expect(await sheet.locator('fieldset.group').evaluateAll((f) => f.map((x) => x.getAttribute('data-group')))).toEqual(['Saus bij de biefstuk', "Extra's"]);
    expect(await sheet.locator('[data-group="Saus bij de biefstuk"] label.option').evaluateAll((l) => l.map((x) => x.getAttribute('data-option')))).toEqual(['Pepersaus', 'Chimichurri']);
    expect(await page.isDisabled('#sheet-add')).toBe(true);
    expect(await text(page, '#sheet-missing')).toBe('Kies nog: Saus bij de biefstuk');
    // At most two extras: the third box is closed once two are ticked.
    await sheet.locator('[data-option="Gebakken ui"] input').check();
    await sheet.locator('[data-option="Spek"] input').check();
    expect(await sheet.locator('[data-option="Champignons"] input').isDisabled()).toBe(true);
    await sheet.locator('[data-option="Spek"] input').uncheck();
    await sheet.locator('[data-option="Pepersaus"] input').check();
    expect(await text(page, '#sheet-add')).toBe('Toevoegen · € 25,00');
    await shot(page, 'menu-depth-guest-sheet-390');
    await page.click('#sheet-add');
    await sheet.waitFor({ state: 'detached' });
    expect(await text(page, '#basket-total')).toBe('€ 25,00');
    expect(await text(page, '#basket-lines [data-line="Biefstuk"]')).toContain('Pepersaus, Gebakken ui');
    // No horizontal scrolling on the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.fill('#checkout [name=name]', 'Gast Zondermelk');
    await page.fill('#checkout [name=phone]', '0612345678');
    const request = page.waitForRequest((q) => q.method() === 'POST' && q.url().includes('/public/order/'));
    await page.click('#order-submit');
    const body = (await request).postDataJSON();
    expect(body.items).toEqual([{ product_id: r.ids.steak, quantity: 1, modifiers: [{ option_id: pepper }, { option_id: onion }] }]);
    // The server prices it the same (€ 22,50 + € 1,50 + € 1,00); the guest pays through the simulator.
    await page.waitForURL(/\/payments\/simulator\//);
    await page.click('button[value="betaald"]');
    await page.waitForSelector('#order-page[data-payment="paid"]');
    expect(await text(page, '#order-page')).toContain('Pepersaus, Gebakken ui');
    expect(await text(page, '#order-page')).toContain('€ 25,00');
    await shot(page, 'menu-depth-guest-paid-390');
    const orders = (await r.api('GET', '/orders')).data;
    const mine = orders.find((o: { customer: { name: string } | null }) => o.customer?.name === 'Gast Zondermelk');
    expect(mine.total_cents).toBe(2500);
    expect(mine.items[0].modifiers.map((m: { name: string }) => m.name).sort()).toEqual(['Gebakken ui', 'Pepersaus']);
  }, 120_000);

  it('a waiter takes a steak with a forced sauce for seat 1 and a soup for seat 2; the total counts the options', async () => {
    const sauce = await r.api('POST', '/modifier-groups', { name: 'Saus (kies 1)', min_select: 1, max_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }, { name: 'Bearnaise', available: false }] });
    const doneness = await r.api('POST', '/modifier-groups', { name: 'Bakwijze', min_select: 0, max_select: 1, options: [{ name: 'Rood' }, { name: 'Medium' }, { name: 'Doorbakken' }] });
    await r.api('PATCH', `/products/${r.ids.steak}`, { modifier_group_ids: [doneness.id, sauce.id], course: 2 });
    const pepper = sauce.options.find((o: { name: string }) => o.name === 'Pepersaus').id;
    const medium = doneness.options.find((o: { name: string }) => o.name === 'Medium').id;

    const page = await r.staff(1280, 800);
    await page.goto(`${r.base}/app/?slug=${r.slug}#/bestellen?tafel=${r.ids.t1}`);
    await page.waitForSelector('#order-panel #products .product');
    await page.click('#category-tabs button:has-text("Hoofdgerechten")');
    // The dish's allergens on the pad, in Dutch (the steak's mustard, set above).
    expect(await text(page, '.product:has-text("Biefstuk")')).toContain('bevat mosterd');
    await page.click('#seat-bar [data-seat="1"]');
    await page.click('.product:has-text("Biefstuk")');
    const choices = page.locator('#choices');
    await choices.waitFor();
    // The forced sauce is asked first, an option that is off cannot be chosen, "add" waits for the sauce.
    expect(await choices.locator('fieldset').evaluateAll((f) => f.map((x) => x.getAttribute('data-group')))).toEqual(['Saus (kies 1)', 'Bakwijze']);
    expect(await choices.locator('[data-option="Bearnaise"]').isDisabled()).toBe(true);
    expect(await page.isDisabled('#choices-add')).toBe(true);
    expect(await text(page, '#choices-missing')).toBe('Kies nog: Saus (kies 1)');
    await choices.locator('[data-option="Stroganoffsaus"]').click();
    await choices.locator('[data-option="Pepersaus"]').click(); // one of one: the second tap replaces the first
    expect(await choices.locator('[data-option="Stroganoffsaus"]').getAttribute('aria-pressed')).toBe('false');
    await choices.locator('[data-option="Medium"]').click();
    expect(await text(page, '#choices-add')).toBe('Toevoegen · € 24,00');
    await shot(page, 'menu-depth-order-pad-choices');
    await page.click('#choices-add');
    await choices.waitFor({ state: 'detached' });
    const steakLine = page.locator('#draft-lines li:has-text("Biefstuk")');
    expect(await steakLine.textContent()).toContain('Pepersaus, Medium');
    expect((await steakLine.textContent())?.replace(/\u00a0/g, ' ')).toContain('€ 24,00 · stoel 1 · gang 2');
    // Soup for seat 2, with a note on its line.
    await page.click('#seat-bar [data-seat="2"]');
    await page.click('#category-tabs button:has-text("Voorgerechten")');
    await page.click('.product:has-text("Tomatensoep")');
    const soupLine = page.locator('#draft-lines li:has-text("Tomatensoep")');
    await soupLine.locator('button.link').click();
    await soupLine.getByLabel('Notitie', { exact: true }).fill('zonder croutons');
    await soupLine.getByLabel('Gang', { exact: true }).selectOption('1');
    await shot(page, 'menu-depth-order-pad-lines');
    expect((await text(page, '#submit-order'))).toBe('Bestelling plaatsen (€ 30,50)');
    const request = page.waitForRequest((q) => q.method() === 'POST' && q.url().endsWith('/api/v1/orders'));
    await page.click('#submit-order');
    const body = (await request).postDataJSON();
    expect(body.table_id).toBe(r.ids.t1);
    expect(body.items).toEqual([
      { product_id: r.ids.steak, quantity: 1, modifiers: [{ option_id: pepper }, { option_id: medium }], seat: 1 },
      { product_id: r.ids.soup, quantity: 1, seat: 2, notes: 'zonder croutons' },
    ]);
    // The server agrees: the sauce and doneness on seat 1, mains held as course 2, the soup on seat 2.
    await page.waitForSelector('#order-panel', { state: 'detached' });
    const orders = (await r.api('GET', '/orders')).data;
    const mine = orders.find((o: { table_id: string | null }) => o.table_id === r.ids.t1);
    expect(mine.total_cents).toBe(3050);
    const steakItem = mine.items.find((i: { product_id: string }) => i.product_id === r.ids.steak);
    expect(steakItem).toMatchObject({ unit_price_cents: 2400, seat: 1, course: 2 });
    expect(steakItem.modifiers.map((m: { name: string }) => m.name)).toEqual(['Pepersaus', 'Medium']);
    expect(mine.items.find((i: { product_id: string }) => i.product_id === r.ids.soup)).toMatchObject({ seat: 2, course: 1, notes: 'zonder croutons' });
  }, 120_000);
  it('a waiter takes a steak with the forced sauce for seat 1 and a burger with two extras for seat 2, mains held as course 2; the kitchen board shows the options and the held course and fires it; repeats the round; voids a line from the table with a reason', async () => {
    const sauce = await r.api('POST', '/modifier-groups', { name: 'Saus bij vlees', min_select: 1, max_select: 1, options: [{ name: 'Stroganoffsaus' }, { name: 'Pepersaus', price_delta_cents: 150 }] });
    const extras = await r.api('POST', '/modifier-groups', { name: 'Burger extra', min_select: 0, max_select: 5, options: [{ name: 'Extra kaas', price_delta_cents: 100 }, { name: 'Spek', price_delta_cents: 150 }, { name: 'Gebakken ei', price_delta_cents: 100 }] });
    const mains = (await r.api('GET', '/categories')).data.find((c: { name: string }) => c.name === 'Hoofdgerechten');
    // The mains' course comes from their category (2): the pad sends no course, the server holds them.
    await r.api('PATCH', `/categories/${mains.id}`, { course: 2 });
    await r.api('PATCH', `/products/${r.ids.steak}`, { modifier_group_ids: [sauce.id], course: null });
    r.ids.burger = (await r.api('POST', '/products', { name: 'Burger', price_cents: 1750, category_id: mains.id, modifier_group_ids: [extras.id] })).id;
    const opt = (g: { options: Array<{ id: string; name: string }> }, name: string) => g.options.find((o) => o.name === name)!.id;

    const page = await r.staff(1280, 800);
    await page.goto(`${r.base}/app/?slug=${r.slug}#/bestellen?tafel=${r.ids.t2}`);
    await page.waitForSelector('#order-panel #products .product');
    expect(await page.locator('#repeat-round').count()).toBe(0); // nothing to repeat at an empty table
    await page.click('#category-tabs button:has-text("Hoofdgerechten")');
    await page.click('#seat-bar [data-seat="1"]');
    await page.click('.product:has-text("Biefstuk")');
    await page.locator('#choices').waitFor();
    expect(await page.isDisabled('#choices-add')).toBe(true);
    await page.locator('#choices [data-option="Pepersaus"]').click();
    await page.click('#choices-add');
    await page.locator('#choices').waitFor({ state: 'detached' });
    await page.click('#seat-bar [data-seat="2"]');
    await page.click('.product:has-text("Burger")');
    await page.locator('#choices').waitFor();
    expect(await page.isDisabled('#choices-add')).toBe(false); // extras are optional
    await page.locator('#choices [data-option="Extra kaas"]').click();
    await page.locator('#choices [data-option="Spek"]').click();
    expect(await text(page, '#choices-add')).toBe('Toevoegen · € 20,00');
    await shot(page, 'menu-depth-burger-extras');
    await page.click('#choices-add');
    await page.locator('#choices').waitFor({ state: 'detached' });
    expect(await text(page, '#draft-lines li:has-text("Burger")')).toContain('Extra kaas, Spek');
    expect(await text(page, '#draft-lines li:has-text("Burger")')).toContain('€ 20,00 · stoel 2 · gang 2');
    expect(await text(page, '#submit-order')).toBe('Bestelling plaatsen (€ 44,00)');
    await shot(page, 'menu-depth-order-pad-round');
    await page.click('#submit-order');
    await page.waitForSelector('#order-panel', { state: 'detached' });

    // As stored: seats, options, prices, and the mains held as course 2.
    const atTable = async () => (await r.api('GET', `/floorplan/tables/${r.ids.t2}/bill`)).orders as any[];
    const [first] = await atTable();
    expect(first.total_cents).toBe(4400);
    expect(first.items.map((i: any) => [i.name, i.seat, i.course, i.held, i.unit_price_cents, i.modifiers.map((m: any) => m.option_id)])).toEqual([
      ['Biefstuk', 1, 2, true, 2400, [opt(sauce, 'Pepersaus')]],
      ['Burger', 2, 2, true, 2000, [opt(extras, 'Extra kaas'), opt(extras, 'Spek')]],
    ]);

    // The kitchen board shows the round with its options and seats, the mains held apart as course 2; the cook fires them from the board,
    // and the card says who fired it and when (also when course 2 is the card's only course).
    await screenReady(page, '/keuken', r.base, r.slug);
    const card = page.locator(`.card[data-order-id="${first.id}"]`);
    await card.waitFor();
    const held = card.locator('.course.held');
    expect(await held.locator('.course-head').textContent()).toBe('Gang 2 — wacht');
    expect(await held.locator('.line-name').allTextContents()).toEqual(['Biefstuk', 'Burger']);
    expect(await held.locator('.line:has-text("Biefstuk") .seat').textContent()).toBe('S1');
    expect(await held.locator('.line:has-text("Burger") .seat').textContent()).toBe('S2');
    expect(await held.locator('.line:has-text("Biefstuk") .options li').allTextContents()).toEqual(['Pepersaus']);
    expect(await held.locator('.line:has-text("Burger") .options li').allTextContents()).toEqual(['Extra kaas', 'Spek']);
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'menu-depth-kitchen-held');
    await held.locator('button[data-fire="2"]').click();
    await expect.poll(() => card.locator('.course.held').count()).toBe(0);
    await expect.poll(() => text(page, `.card[data-order-id="${first.id}"] .course[data-course="2"] .course-head`)).toMatch(/^Gang 2 — gevuurd \d\d:\d\d door Sanne$/);
    await shot(page, 'menu-depth-kitchen-fired');
    expect((await r.api('GET', `/orders/${first.id}/courses`)).fires.map((f: any) => [f.course, f.user_name])).toEqual([[2, 'Sanne']]);
    expect((await atTable()).find((o) => o.id === first.id).items.map((i: any) => [i.name, i.held, i.fired_at !== null])).toEqual([
      ['Biefstuk', false, true],
      ['Burger', false, true],
    ]);

    // Another round of the same: one tap puts the last round on the draft again.
    await page.goto(`${r.base}/app/?slug=${r.slug}#/bestellen?tafel=${r.ids.t2}`);
    await page.waitForSelector('#repeat-round');
    expect(await text(page, '#repeat-round')).toContain(first.number);
    expect(await axeCheck(page)).toEqual([]);
    await page.click('#repeat-round');
    expect(await text(page, '#repeat-note')).toBe(`2 regels van ${first.number} toegevoegd.`);
    expect(await text(page, '#draft-lines li:has-text("Biefstuk")')).toContain('Pepersaus');
    expect(await text(page, '#draft-lines li:has-text("Biefstuk")')).toContain('stoel 1 · gang 2');
    expect(await text(page, '#draft-lines li:has-text("Burger")')).toContain('Extra kaas, Spek');
    expect(await text(page, '#submit-order')).toBe('Bestelling plaatsen (€ 44,00)');
    await shot(page, 'menu-depth-repeat-round');
    await page.click('#submit-order');
    await page.waitForSelector('#order-panel', { state: 'detached' });
    const rounds = await atTable();
    expect(rounds).toHaveLength(2);
    const second = rounds.find((o) => o.id !== first.id);
    expect(second.items.map((i: any) => [i.name, i.seat, i.course, i.modifiers.map((m: any) => m.name)])).toEqual([
      ['Biefstuk', 1, 2, ['Pepersaus']],
      ['Burger', 2, 2, ['Extra kaas', 'Spek']],
    ]);

    // The burger of the second round was keyed in by mistake: voided from the table's bill, with a reason.
    await screenReady(page, '/vloer', r.base, r.slug);
    await page.click('.floor-table[data-table="2"]');
    await page.waitForSelector('#table-dialog #table-bill');
    await page.click('#table-void');
    const dlg = page.locator('#void-dialog');
    await dlg.waitFor();
    const line = dlg.locator(`li[data-order="${second.number}"][data-line="Burger"]`);
    await line.locator('.void-pick').click();
    await dlg.locator('#void-form').waitFor();
    await dlg.getByLabel('Overig').check();
    await dlg.locator('[type=submit]').click();
    await expect.poll(() => text(page, '#void-error')).toBe('Vul de reden in.');
    await dlg.getByLabel('Teruggestuurd').check();
    expect(await text(page, '#void-error')).toBe(''); // a new choice clears the last error
    await shot(page, 'menu-depth-void-form');
    expect(await axeCheck(page)).toEqual([]);
    await dlg.locator('#void-submit').click();
    await expect.poll(() => text(page, '#void-done')).toBe('1× Burger geannuleerd (Teruggestuurd).');
    await expect.poll(() => line.locator('del.voided').count()).toBe(1);
    expect(await text(page, `#void-dialog li[data-order="${second.number}"][data-line="Burger"] del.voided`)).toContain('1× Burger (Extra kaas, Spek)');
    expect(await line.locator('.void-pick').isDisabled()).toBe(true);
    await shot(page, 'menu-depth-voided');
    const voidedOrder = (await atTable()).find((o) => o.id === second.id);
    expect(voidedOrder.items.find((i: any) => i.name === 'Burger')).toMatchObject({ voided_quantity: 1, total_cents: 0 });
    expect(voidedOrder.total_cents).toBe(2400);
    const log = await r.api('GET', `/orders/${second.id}/courses`);
    expect(log.voids.map((v: any) => [v.quantity, v.reason])).toEqual([[1, 'Teruggestuurd']]);
    // The table's bill shows it struck through too.
    await page.keyboard.press('Escape');
    await page.locator('#void-dialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('#table-bill del.voided').count()).toBe(1);
    await shot(page, 'menu-depth-bill-voided');
  }, 120_000);
});
