// Partner integrations: API keys (the key is shown once) and webhooks (the secret is shown once)
// with their deliveries, a re-send for failed ones and secret rotation.
import { html, useState } from '../lib/html.js';
import { del, get, post } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { ErrorText, Loading, Pill, Screen, confirmDialog, useAction, useAsync } from '../components/ui.js';

const SCOPES = { read: 'lezen', write: 'schrijven', admin: 'beheer' };
const EVENT_NL = { 'order.created': 'nieuwe bestelling', 'order.paid': 'bestelling betaald', 'order.status_changed': 'status van een bestelling', 'order.course_fired': 'gang naar de keuken', 'reservation.created': 'nieuwe reservering', 'haccp.incident': 'voedselveiligheidsincident', 'loyalty.customer_created': 'nieuwe spaarklant' };
const EVENTS = ['order.created', 'order.paid', 'order.status_changed', 'order.course_fired', 'reservation.created', 'haccp.incident', 'loyalty.customer_created'];

function Once({ label, value }) {
  return html`<div class="tile once" role="status"><strong>${label}</strong> (wordt maar één keer getoond; bewaar hem nu):<br /><code class="secret">${value}</code></div>`;
}

function Deliveries({ webhook }) {
  const list = useAsync(() => get(`/webhooks/${webhook.id}/deliveries?limit=20`), [webhook.id]);
  const [run, busy, error] = useAction();
  return html`<${Loading} when=${list.loading && !list.data} error=${list.error}>
    <table class="list deliveries"><thead><tr><th>Wanneer</th><th>Gebeurtenis</th><th>Status</th><th class="num">Pogingen</th><th>Laatste antwoord</th><th><span class="sr-only">Acties</span></th></tr></thead>
      <tbody>${(list.data?.data ?? []).map((d) => html`<tr><td>${dateTime(d.created_at)}</td><td>${d.type ?? d.event_type ?? ''}</td>
        <td><${Pill} kind=${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'kritiek' : 'waarschuwing'}>${{ delivered: 'afgeleverd', failed: 'mislukt', pending: 'bezig' }[d.status]}</${Pill}></td>
        <td class="num">${d.attempts}</td><td>${d.last_status_code ?? d.last_error ?? ''}</td>
        <td>${d.status === 'failed' ? html`<button type="button" disabled=${busy} onClick=${() => run(async () => { await post(`/webhooks/${webhook.id}/deliveries/${d.id}/redeliver`); await list.reload(); })}>Opnieuw versturen</button>` : null}</td></tr>`)}</tbody></table>
    <${ErrorText} text=${error} />
  </${Loading}>`;
}

export default function Integrations() {
  const keys = useAsync(() => get('/api-keys'));
  const hooks = useAsync(() => get('/webhooks'));
  const [shown, setShown] = useState(/** @type {{label: string, value: string}|null} */ (null));
  const [open, setOpen] = useState(/** @type {string|null} */ (null));
  const [run, busy, error] = useAction();
  return html`<${Screen} title="API-sleutels en webhooks" id="integrations">
    ${shown ? html`<${Once} ...${shown} />` : null}
    <${ErrorText} text=${error} />
    <h2>API-sleutels</h2>
    <form class="tile inline" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      void run(async () => {
        const k = await post('/api-keys', { name: f.get('name'), scopes: f.getAll('scope') });
        setShown({ label: `Sleutel '${k.name}'`, value: k.key });
        await keys.reload();
      });
    }}>
      <div><label for="key-name">Naam</label><input id="key-name" name="name" required maxlength="120" placeholder="bv. Bezorgplatform" /></div>
      <fieldset class="checks"><legend>Rechten</legend>${Object.entries(SCOPES).map(([s, l]) => html`<label class="check"><input type="checkbox" name="scope" value=${s} checked=${s === 'read'} /> ${l} <span class="muted">(${s})</span></label>`)}</fieldset>
      <button type="submit" class="primary" disabled=${busy}>Sleutel maken</button>
    </form>
    <${Loading} when=${keys.loading && !keys.data} error=${keys.error}>
      <table class="list"><thead><tr><th>Naam</th><th>Begin</th><th>Rechten</th><th>Laatst gebruikt</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${(keys.data?.data ?? []).map((k) => html`<tr><td>${k.name}</td><td><code>${k.key_prefix}…</code></td><td>${k.scopes.map((x) => SCOPES[x] ?? x).join(', ')}</td><td>${k.last_used_at ? dateTime(k.last_used_at) : '–'}</td>
          <td>${k.revoked_at ? html`<${Pill} kind="muted">ingetrokken</${Pill}>` : html`<button type="button" class="danger" disabled=${busy} onClick=${async () => {
            if (await confirmDialog({ title: `Sleutel '${k.name}' intrekken?`, message: 'Wie deze sleutel gebruikt, krijgt meteen geen toegang meer. Dit kan niet ongedaan worden.', confirmLabel: 'Intrekken' })) await run(async () => { await del(`/api-keys/${k.id}`); await keys.reload(); });
          }}>Intrekken</button>`}</td></tr>`)}</tbody></table>
    </${Loading}>
    <h2>Webhooks</h2>
    <form class="tile inline" onSubmit=${(e) => {
      e.preventDefault();
      const f = new FormData(e.currentTarget);
      void run(async () => {
        const w = await post('/webhooks', { url: f.get('url'), events: f.getAll('event') });
        setShown({ label: `Geheim van ${w.url}`, value: w.secret });
        await hooks.reload();
      });
    }}>
      <div style="flex-basis:100%"><label for="hook-url">Adres (https://…)</label><input id="hook-url" name="url" type="url" required /></div>
      <fieldset class="checks"><legend>Gebeurtenissen</legend>${EVENTS.map((ev) => html`<label class="check"><input type="checkbox" name="event" value=${ev} checked /> ${EVENT_NL[ev]} <code class="muted">${ev}</code></label>`)}</fieldset>
      <button type="submit" class="primary" disabled=${busy}>Webhook toevoegen</button>
    </form>
    <${Loading} when=${hooks.loading && !hooks.data} error=${hooks.error}>
      ${(hooks.data?.data ?? []).map((w) => html`<div class="tile" style="margin-bottom:.5rem">
        <strong>${w.url}</strong> <span class="muted">${w.events.map((e) => EVENT_NL[e] ?? e).join(', ')}</span>
        <div class="screen-actions">
          <button type="button" onClick=${() => setOpen(open === w.id ? null : w.id)}>${open === w.id ? 'Verberg leveringen' : 'Leveringen'}</button>
          <button type="button" disabled=${busy} onClick=${async () => (await confirmDialog({ title: 'Nieuw geheim maken?', message: 'Het oude geheim werkt daarna niet meer: zet het nieuwe meteen bij de ontvanger.', confirmLabel: 'Nieuw geheim', danger: false })) && run(async () => { const r = await post(`/webhooks/${w.id}/rotate-secret`); setShown({ label: `Nieuw geheim van ${w.url}`, value: r.secret }); })}>Nieuw geheim</button>
          <button type="button" class="danger" disabled=${busy} onClick=${async () => {
            if (await confirmDialog({ title: 'Webhook verwijderen?', message: `${w.url} krijgt geen berichten meer.` })) await run(async () => { await del(`/webhooks/${w.id}`); await hooks.reload(); });
          }}>Verwijderen</button>
        </div>
        ${open === w.id ? html`<${Deliveries} webhook=${w} />` : null}
      </div>`)}
    </${Loading}>
  </${Screen}>`;
}
