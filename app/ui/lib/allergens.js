// The 14 allergens of Regulation (EU) 1169/2011 Annex II (CONTRACT §17) with the names people read,
// in the API's order, and the dietary marks. One table for every staff screen.
/** @type {Array<[code: string, nl: string, en: string]>} */
export const ALLERGENS = [
  ['gluten', 'Gluten', 'Gluten'],
  ['crustaceans', 'Schaaldieren', 'Crustaceans'],
  ['eggs', 'Eieren', 'Eggs'],
  ['fish', 'Vis', 'Fish'],
  ['peanuts', "Pinda's", 'Peanuts'],
  ['nuts', 'Noten', 'Tree nuts'],
  ['soybeans', 'Soja', 'Soy'],
  ['milk', 'Melk', 'Milk'],
  ['celery', 'Selderij', 'Celery'],
  ['mustard', 'Mosterd', 'Mustard'],
  ['sesame', 'Sesamzaad', 'Sesame'],
  ['sulphites', 'Sulfiet', 'Sulphites'],
  ['lupin', 'Lupine', 'Lupin'],
  ['molluscs', 'Weekdieren', 'Molluscs'],
];
export const ALLERGEN_NL = Object.fromEntries(ALLERGENS.map(([c, nl]) => [c, nl]));
/** The short mark on an allergen's round icon (the same as the guest pages': app/guest/i18n.js). */
export const ALLERGEN_MARK = { gluten: 'Gl', crustaceans: 'Sc', eggs: 'Ei', fish: 'Vi', peanuts: 'Pi', nuts: 'No', soybeans: 'So', milk: 'Me', celery: 'Se', mustard: 'Mo', sesame: 'Ss', sulphites: 'Su', lupin: 'Lu', molluscs: 'We' };
/** @type {Array<[code: string, nl: string]>} */
export const DIETARY = [['vegetarian', 'Vegetarisch'], ['vegan', 'Veganistisch']];
export const DIETARY_NL = Object.fromEntries(DIETARY);
/** "Melk, Noten" for a list of codes. @param {string[]|undefined} codes */
export const allergenNames = (codes) => (codes ?? []).map((c) => ALLERGEN_NL[c] ?? c).join(', ');
/** A line's course in words: 1 goes to the kitchen at once, later ones wait until fired. */
export const COURSES = [['1', 'Gang 1 (direct naar de keuken)'], ['2', 'Gang 2'], ['3', 'Gang 3'], ['4', 'Gang 4'], ['5', 'Gang 5']];
