// Tables on a phone (docs/staff-app.md "Phones"): below 600 px a `table.list` shows each row as a
// card with every cell on its own line, its column's name before it (styles.css "Tables on a phone").
// CSS cannot read a column's header, so this gives every body cell its column's name as `data-label`,
// for every table any screen renders, also rows that come later (a live update, a new page). A screen
// writes its tables as plain tables; nothing else is needed.

/** The column names of a table's header row, one per column (a header cell spanning two counts twice). */
function columnNames(/** @type {HTMLTableElement} */ table) {
  const row = table.tHead?.rows[0];
  if (!row) return null;
  /** @type {string[]} */
  const names = [];
  for (const th of Array.from(row.cells)) {
    const text = (th.textContent ?? '').replace(/\s+/g, ' ').trim();
    // A header only for screen readers ("Acties" over the buttons) shows no name beside its cells.
    const hidden = th.querySelector('.sr-only');
    const name = hidden && (hidden.textContent ?? '').trim() === text ? '' : text;
    for (let i = 0; i < th.colSpan; i++) names.push(name);
  }
  return names;
}

/** Gives each body cell of the table its column's name (a cell spanning columns, such as "Nog geen omzet.", gets none). */
export function labelCells(/** @type {HTMLTableElement} */ table) {
  const names = columnNames(table);
  if (!names) return;
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let col = 0;
      for (const cell of Array.from(row.cells)) {
        const name = cell.colSpan > 1 ? '' : (names[col] ?? '');
        if (cell.getAttribute('data-label') !== name) cell.setAttribute('data-label', name);
        col += cell.colSpan;
      }
    }
  }
}

/** Labels the tables under `root` now and whenever they change. */
export function stackTables(/** @type {HTMLElement} */ root) {
  root.querySelectorAll('table.list').forEach((t) => labelCells(/** @type {HTMLTableElement} */ (t)));
  new MutationObserver((records) => {
    /** @type {Set<HTMLTableElement>} */
    const tables = new Set();
    for (const r of records) {
      const at = r.target instanceof Element ? r.target : r.target.parentElement;
      const inside = at?.closest('table.list');
      if (inside) tables.add(/** @type {HTMLTableElement} */ (inside));
      for (const n of Array.from(r.addedNodes)) {
        if (!(n instanceof Element)) continue;
        if (n.matches('table.list')) tables.add(/** @type {HTMLTableElement} */ (n));
        n.querySelectorAll('table.list').forEach((t) => tables.add(/** @type {HTMLTableElement} */ (t)));
      }
    }
    tables.forEach(labelCells);
  }).observe(root, { childList: true, subtree: true, characterData: true });
}
