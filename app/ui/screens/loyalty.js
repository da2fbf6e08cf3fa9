// Loyalty at the till: find a customer by phone (any notation), name or e-mail, see the balance and
// history, add a customer, redeem points. A redemption never overdraws (the server says why).
import { html, useState } from '../lib/html.js';
import { get, post } from '../lib/api.js';
import { dateTime, num } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { ErrorText, Field, FormFoot, Screen, useAction, useForm } from '../components/ui.js';

const LABELS = { points: 'Punten', phone: 'Telefoonnummer', name: 'Naam', email: 'E-mailadres', customer_id: 'klant', search: 'zoekterm' };

const TYPE = { earn: 'Gespaard', redeem: 'Ingewisseld', adjust: 'Correctie' };

function CustomerCard({ customer, onChanged }) {
  const [points, setPoints] = useState('');
  const [run, busy, error] = useAction(LABELS);
  return html`<div class="tile" id="customer" data-customer=${customer.id}>
    <h3>${customer.name ?? 'Klant'} <span class="muted">${customer.phone}</span></h3>
    <p class="balance">Saldo: <strong id="balance">${num(customer.balance, 0)}</strong> punten</p>
    <form class="inline" id="redeem-form" onSubmit=${(e) => {
      e.preventDefault();
      void run(async () => {
        const r = await post('/loyalty/redeem', { customer_id: customer.id, points: Number(points) });
        toast(`${r.points_redeemed} punten ingewisseld; nieuw saldo ${r.balance}.`);
        setPoints('');
        onChanged();
      });
    }}>
      <div><label for="redeem-points">Punten inwisselen</label><input id="redeem-points" inputmode="numeric" required value=${points} onInput=${(e) => setPoints(e.currentTarget.value)} /></div>
      <button type="submit" class="primary" disabled=${busy || !points}>Inwisselen</button>
    </form>
    <${ErrorText} text=${error} />
    <table class="list" id="transactions"><thead><tr><th>Wanneer</th><th>Wat</th><th class="num">Punten</th></tr></thead>
      <tbody>${(customer.transactions ?? []).slice(0, 20).map((t) => html`<tr><td>${dateTime(t.created_at)}</td><td>${TYPE[t.type]}${t.note ? ` – ${t.note}` : ''}</td><td class="num">${t.points > 0 ? '+' : ''}${num(t.points, 0)}</td></tr>`)}</tbody></table>
  </div>`;
}

export default function Loyalty() {
  const [q, setQ] = useState('');
  const [results, setResults] = useState(/** @type {any[]|null} */ (null));
  const [customer, setCustomer] = useState(/** @type {any} */ (null));
  const [adding, setAdding] = useState(false);
  const [run, busy, error] = useAction(LABELS);
  const form = useForm({ phone: '', name: '', email: '' });
  const open = (/** @type {string} */ phone) => run(async () => setCustomer(await get(`/loyalty/customer/${encodeURIComponent(phone)}`)));
  const search = () => run(async () => {
    setCustomer(null);
    const { data } = await get(`/loyalty/customers?search=${encodeURIComponent(q)}&limit=20`);
    setResults(data);
    if (data.length === 1) await open(data[0].phone);
  });
  return html`<${Screen} title="Klanten en punten" id="loyalty" actions=${html`<button type="button" onClick=${() => setAdding((a) => !a)}>+ Klant</button>`}>
    <form class="tile inline" onSubmit=${(e) => { e.preventDefault(); void search(); }}>
      <div><label for="loyalty-search">Telefoon, naam of e-mail</label><input id="loyalty-search" value=${q} onInput=${(e) => setQ(e.currentTarget.value)} placeholder="bv. 06 12345678" /></div>
      <button type="submit" class="primary" disabled=${busy || !q.trim()}>Zoeken</button>
    </form>
    ${adding
      ? html`<form novalidate class="tile inline" id="customer-form" onSubmit=${form.submit(async (v) => {
          const c = await post('/loyalty/customer', { phone: v.phone.trim(), ...(v.name.trim() ? { name: v.name.trim() } : {}), ...(v.email.trim() ? { email: v.email.trim() } : {}) });
          setAdding(false);
          form.reset({ phone: '', name: '', email: '' });
          await open(c.phone);
        }, 'Klant opgeslagen.')}>
          <${Field} form=${form} name="phone" label=${LABELS.phone} type="tel" required autocomplete="off" />
          <${Field} form=${form} name="name" label=${LABELS.name} autocomplete="off" />
          <${Field} form=${form} name="email" label=${LABELS.email} type="email" autocomplete="off" />
          <${FormFoot} form=${form} label="Opslaan" />
        </form>`
      : null}
    <${ErrorText} text=${error} />
    ${results && !customer
      ? results.length === 0
        ? html`<p class="muted">Geen klant gevonden.</p>`
        : html`<ul class="plain">${results.map((c) => html`<li><button type="button" class="link" onClick=${() => open(c.phone)}>${c.name ?? c.phone} – ${c.phone} (${num(c.balance, 0)} punten)</button></li>`)}</ul>`
      : null}
    ${customer ? html`<${CustomerCard} customer=${customer} onChanged=${() => open(customer.phone)} />` : null}
  </${Screen}>`;
}
