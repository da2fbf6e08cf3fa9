// Dutch first, with an English switch for tourists. Messages from the server are Dutch; the pages'
// own texts follow the switch.
const NL = {
  menu: 'Menu', basket: 'Mandje', empty_basket: 'Je mandje is nog leeg.', add: 'Toevoegen', unavailable: 'Niet beschikbaar',
  order_type: 'Hoe wil je het ontvangen?', pickup: 'Afhalen', delivery: 'Bezorgen', table: 'Aan tafel',
  name: 'Naam', phone: 'Telefoonnummer', email: 'E-mail (optioneel)', address: 'Bezorgadres', table_name: 'Tafelcode', table_code_hint: 'De code staat bij de QR-code op je tafel; scan die om aan tafel te bestellen.', order_here: 'Bestellen aan deze tafel', at_table: 'Aan tafel {name}', notes: 'Opmerking (optioneel)',
  checkout: 'Bestellen en betalen', place_order: 'Bestelling plaatsen', sending: 'Bezig…', total: 'Totaal',
  paused_title: 'Online bestellen is even niet mogelijk',
  paused: 'Het restaurant neemt op dit moment geen online bestellingen aan. Probeer het later opnieuw of bel het restaurant.',
  your_order: 'Je bestelling', order_number: 'Bestelnummer', status: 'Status',
  st_new: 'Ontvangen', st_accepted: 'Geaccepteerd', st_preparing: 'Wordt bereid', st_ready: 'Klaar', st_delivering: 'Onderweg', st_completed: 'Afgerond', st_cancelled: 'Geannuleerd',
  paid: 'Betaald', not_paid: 'Nog niet betaald', waiting_payment: 'We wachten op de bevestiging van je betaling…',
  payment_failed: 'De betaling is niet gelukt. Er is niets afgeschreven.', try_again: 'Opnieuw betalen',
  payment_ok: 'Je betaling is gelukt. Dank je wel!', not_seen: 'Het restaurant heeft je bestelling nog niet gezien; die komt binnen zodra het restaurant weer verbinding heeft.',
  bill: 'Rekening', open: 'Nog te betalen', already_paid: 'Al betaald', pay_all: 'Alles betalen', pay_part: 'Een deel betalen', amount: 'Bedrag (€)', tip: 'Fooi',
  no_tip: 'Geen', pay: 'Betalen', nothing_open: 'Er staat niets open op deze tafel.', back_to_bill: 'Terug naar de rekening', rest_open: 'Nog open op deze tafel',
  book: 'Reserveren', date: 'Datum', party: 'Aantal personen', time: 'Tijd', no_times: 'Geen tijden beschikbaar op deze dag.', confirm_booking: 'Reservering bevestigen',
  booked: 'Je reservering is bevestigd', booked_for: 'voor', persons: 'personen', order_online: 'Online bestellen', language: 'English',
  not_found: 'Dit restaurant bestaat niet.', error: 'Er ging iets mis. Probeer het opnieuw.',
  address_title: 'Adres', hours_title: 'Openingstijden', closed: 'gesloten', call: 'Bel ons', too_many: 'Online reserveren kan tot en met {n} personen. Voor een groter gezelschap: bel ons{phone}.',
  check_field: 'Controleer dit veld.', check_fields: 'Controleer de gemarkeerde velden.', conflict: 'Dat lukt niet meer, bijvoorbeeld omdat dit tijdstip net vol is. Kies een ander.',
  rate_limited: 'Te veel pogingen; probeer het over een minuut opnieuw.', days: ['maandag', 'dinsdag', 'woensdag', 'donderdag', 'vrijdag', 'zaterdag', 'zondag'],
  delivery_address: 'Bezorgadres', amount_label: 'Bedrag', party_size: 'Aantal personen', items: 'Bestelling',
  filter_title: 'Allergieën?', filter_hint: 'Toon alleen gerechten zonder:', without: 'zonder', more_allergens: 'Meer allergenen', hidden_filter: 'Gerechten met {list} staan er niet bij.',
  no_dishes: 'Er zijn geen gerechten zonder deze allergenen.', contains: 'Bevat', vegetarian: 'Vegetarisch', vegan: 'Veganistisch', ask_staff: 'Vraag het restaurant bij twijfel.',
  required: 'verplicht', choose_n: 'kies {n}', choose_range: 'kies {min} tot {max}', choose_upto: 'kies maximaal {max}', still_choose: 'Kies nog: {groups}',
  cancel: 'Annuleren', add_price: 'Toevoegen · {price}', with_options: 'met keuze', one_less: 'Eén minder', one_more: 'Eén meer', options: 'Keuzes', veg_only: 'Alleen vegetarisch',
};
const EN = {
  menu: 'Menu', basket: 'Basket', empty_basket: 'Your basket is empty.', add: 'Add', unavailable: 'Not available',
  order_type: 'How would you like it?', pickup: 'Pick up', delivery: 'Delivery', table: 'At my table',
  name: 'Name', phone: 'Phone number', email: 'E-mail (optional)', address: 'Delivery address', table_name: 'Table code', table_code_hint: 'The code is with the QR code on your table; scan it to order at your table.', order_here: 'Order at this table', at_table: 'At table {name}', notes: 'Note (optional)',
  checkout: 'Order and pay', place_order: 'Place order', sending: 'Sending…', total: 'Total',
  paused_title: 'Online ordering is paused',
  paused: 'The restaurant is not taking online orders right now. Please try again later or call the restaurant.',
  your_order: 'Your order', order_number: 'Order number', status: 'Status',
  st_new: 'Received', st_accepted: 'Accepted', st_preparing: 'Being prepared', st_ready: 'Ready', st_delivering: 'On its way', st_completed: 'Completed', st_cancelled: 'Cancelled',
  paid: 'Paid', not_paid: 'Not paid yet', waiting_payment: 'Waiting for your payment to be confirmed…',
  payment_failed: 'The payment did not go through. Nothing was charged.', try_again: 'Try paying again',
  payment_ok: 'Your payment went through. Thank you!', not_seen: 'The restaurant has not seen your order yet; it arrives as soon as the restaurant is back online.',
  bill: 'Bill', open: 'Still to pay', already_paid: 'Already paid', pay_all: 'Pay everything', pay_part: 'Pay part', amount: 'Amount (€)', tip: 'Tip',
  no_tip: 'None', pay: 'Pay', nothing_open: 'Nothing is open on this table.', back_to_bill: 'Back to the bill', rest_open: 'Still open on this table',
  book: 'Book a table', date: 'Date', party: 'Number of guests', time: 'Time', no_times: 'No times available on this day.', confirm_booking: 'Confirm booking',
  booked: 'Your booking is confirmed', booked_for: 'for', persons: 'guests', order_online: 'Order online', language: 'Nederlands',
  not_found: 'This restaurant does not exist.', error: 'Something went wrong. Please try again.',
  address_title: 'Address', hours_title: 'Opening hours', closed: 'closed', call: 'Call us', too_many: 'Online booking is for up to {n} guests. For a larger group, please call us{phone}.',
  check_field: 'Please check this field.', check_fields: 'Please check the marked fields.', conflict: 'That is no longer possible, for example because this time just filled up. Please choose another.',
  rate_limited: 'Too many attempts; please try again in a minute.', days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  delivery_address: 'Delivery address', amount_label: 'Amount', party_size: 'Number of guests', items: 'Order',
  filter_title: 'Allergies?', filter_hint: 'Only show dishes without:', without: 'no', more_allergens: 'More allergens', hidden_filter: 'Dishes with {list} are left out.',
  no_dishes: 'There are no dishes without these allergens.', contains: 'Contains', vegetarian: 'Vegetarian', vegan: 'Vegan', ask_staff: 'When in doubt, ask the restaurant.',
  required: 'required', choose_n: 'choose {n}', choose_range: 'choose {min} to {max}', choose_upto: 'choose up to {max}', still_choose: 'Still to choose: {groups}',
  cancel: 'Cancel', add_price: 'Add · {price}', with_options: 'with choices', one_less: 'One less', one_more: 'One more', options: 'Choices', veg_only: 'Vegetarian only',
};
const KEY = 'guest.lang';
export let lang = /** @type {'nl'|'en'} */ (localStorage.getItem(KEY) === 'en' ? 'en' : 'nl');
/** @param {keyof typeof NL} k */
export const t = (k) => (lang === 'en' ? EN : NL)[k] ?? k;
export function toggleLang() {
  lang = lang === 'en' ? 'nl' : 'en';
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}
document.documentElement.lang = lang;
export const euro = (/** @type {number} */ cents) => new Intl.NumberFormat(lang === 'en' ? 'en-IE' : 'nl-NL', { style: 'currency', currency: 'EUR' }).format(cents / 100);
/** A booking's date as people write it: "vrijdag 27 november 2026" / "Friday 27 November 2026". @param {string} ymd */
export const longDate = (ymd) => new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'nl-NL', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(`${ymd}T12:00:00`));
/** Any list entry (days) or text; `{n}`-style placeholders filled. @param {string} k @param {Record<string, string|number>} [vars] */
export const tf = (k, vars = {}) => String(t(/** @type {any} */ (k))).replace(/\{(\w+)\}/g, (_, v) => String(vars[v] ?? ''));

/**
 * The 14 allergens of Regulation (EU) 1169/2011 (CONTRACT §17): code, Dutch, English and the short
 * mark on its round icon. Both names are always shown (a tourist and the staff read the same dish).
 * @type {Array<[code: string, nl: string, en: string, mark: string]>}
 */
export const ALLERGENS = [
  ['gluten', 'Gluten', 'Gluten', 'Gl'], ['crustaceans', 'Schaaldieren', 'Crustaceans', 'Sc'], ['eggs', 'Eieren', 'Eggs', 'Ei'], ['fish', 'Vis', 'Fish', 'Vi'],
  ['peanuts', "Pinda's", 'Peanuts', 'Pi'], ['nuts', 'Noten', 'Tree nuts', 'No'], ['soybeans', 'Soja', 'Soy', 'So'], ['milk', 'Melk', 'Milk', 'Me'],
  ['celery', 'Selderij', 'Celery', 'Se'], ['mustard', 'Mosterd', 'Mustard', 'Mo'], ['sesame', 'Sesamzaad', 'Sesame', 'Ss'], ['sulphites', 'Sulfiet', 'Sulphites', 'Su'],
  ['lupin', 'Lupine', 'Lupin', 'Lu'], ['molluscs', 'Weekdieren', 'Molluscs', 'We'],
];
const BY_CODE = new Map(ALLERGENS.map((a) => [a[0], a]));
/** The allergen's name in the page's language. @param {string} code */
export const allergenName = (code) => BY_CODE.get(code)?.[lang === 'en' ? 2 : 1] ?? code;
/** The other language's name (shown beside it). @param {string} code */
export const allergenOther = (code) => BY_CODE.get(code)?.[lang === 'en' ? 1 : 2] ?? '';
/** @param {string} code */
export const allergenMark = (code) => BY_CODE.get(code)?.[3] ?? '?';
