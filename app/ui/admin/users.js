// Employees: staff log in with a PIN, admins with e-mail and password; wage and job for rosters and
// payroll. Everything can be changed; a PIN in its own dialog (typed twice, never shown); deleting
// asks first (an employee with shifts is archived: their hours stay in the payroll).
import { html, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { euro, euroInput } from '../lib/format.js';
import { toast } from '../lib/store.js';
import { Dialog, ErrorText, Field, FieldError, FormFoot, Loading, Pill, PinDialog, Screen, confirmDialog, useAction, useAsync, useForm } from '../components/ui.js';

const LABELS = { name: 'Naam', pin: 'Pincode', email: 'E-mailadres', password: 'Wachtwoord', hourly_wage_cents: 'Uurloon (€)', job: 'Functie', role: 'Rol' };

function UserDialog({ user, onClose, onSaved }) {
  const editing = !!user;
  const u = user ?? {};
  const form = useForm({ name: u.name ?? '', role: u.role ?? 'staff', pin: '', email: u.email ?? '', password: '', wage: euroInput(u.hourly_wage_cents ?? null), job: u.job ?? '' });
  const v = form.values;
  return html`<${Dialog} title=${editing ? `${u.name} wijzigen` : 'Nieuwe medewerker'} onClose=${onClose} id="user-dialog">
    <form novalidate id="user-form" onSubmit=${form.submit(async () => {
      const wage = form.cents('wage', { optional: true, max: 100_000 });
      if (editing) {
        const body = { name: v.name.trim(), hourly_wage_cents: wage, job: v.job.trim() || null, ...(u.role === 'admin' && v.email.trim() !== (u.email ?? '') ? { email: v.email.trim() } : {}) };
        await patch(`/users/${u.id}`, body);
        toast(`${body.name} opgeslagen.`);
      } else {
        if (v.role === 'staff' && !/^\d{4,8}$/.test(v.pin)) throw new FieldError('pin', 'moet uit 4 tot 8 cijfers bestaan.');
        await post('/users', {
          name: v.name.trim(), role: v.role, ...(v.role === 'staff' ? { pin: v.pin } : { email: v.email.trim(), password: v.password }),
          ...(wage !== null ? { hourly_wage_cents: wage } : {}), ...(v.job.trim() ? { job: v.job.trim() } : {}),
        });
        toast(`${v.name.trim()} toegevoegd.`);
      }
      onSaved();
      onClose();
    })}>
      <${Field} form=${form} name="name" label=${LABELS.name} required maxlength="120" autocomplete="off" />
      ${editing ? null : html`<${Field} form=${form} name="role" label=${LABELS.role} as="select" options=${[['staff', 'Medewerker (pincode)'], ['admin', 'Beheerder (e-mail en wachtwoord)']]} />`}
      ${!editing && v.role === 'staff' ? html`<${Field} form=${form} name="pin" label="Pincode (4 tot 8 cijfers)" api="pin" type="password" inputmode="numeric" autocomplete="new-password" maxlength="8" required />` : null}
      ${v.role === 'admin' ? html`<${Field} form=${form} name="email" label=${LABELS.email} type="email" required autocomplete="off" />` : null}
      ${!editing && v.role === 'admin' ? html`<${Field} form=${form} name="password" label="Wachtwoord (minstens 10 tekens)" type="password" autocomplete="new-password" required />` : null}
      <${Field} form=${form} name="wage" label=${LABELS.hourly_wage_cents} api="hourly_wage_cents" money hint="Bruto per uur, voor de loonlijst." />
      <${Field} form=${form} name="job" label=${LABELS.job} maxlength="60" placeholder="bv. keuken, bediening" autocomplete="off" />
      <${FormFoot} form=${form} label=${editing ? 'Opslaan' : 'Toevoegen'} />
    </form>
  </${Dialog}>`;
}

export default function Users() {
  const list = useAsync(() => get('/users'));
  const [editing, setEditing] = useState(/** @type {any} */ (null));
  const [pinFor, setPinFor] = useState(/** @type {any} */ (null));
  const [run, busy, error] = useAction(LABELS);
  return html`<${Screen} title="Medewerkers" id="users" actions=${html`<button type="button" class="primary" id="new-user" onClick=${() => setEditing({})}>+ Medewerker</button>`}>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      <div class="table-wrap"><table class="list" id="user-list"><thead><tr><th>Naam</th><th>Rol</th><th>Functie</th><th class="num">Uurloon</th><th><span class="sr-only">Acties</span></th></tr></thead>
        <tbody>${(list.data?.data ?? []).map((u) => html`<tr data-user=${u.name}><td>${u.name}${u.email ? html`<br /><span class="muted">${u.email}</span>` : null}</td><td>${u.role === 'admin' ? html`<${Pill} kind="gereserveerd">beheerder</${Pill}>` : 'medewerker'}</td><td>${u.job ?? ''}</td>
          <td class="num">${u.hourly_wage_cents ? euro(u.hourly_wage_cents) : '–'}</td>
          <td><div class="row-actions">
            <button type="button" data-action="edit" onClick=${() => setEditing(u)}>Wijzigen</button>
            ${u.role === 'staff' ? html`<button type="button" data-action="pin" onClick=${() => setPinFor(u)}>Pincode wijzigen</button>` : null}
            <button type="button" class="danger" data-action="delete" disabled=${busy} onClick=${async () => {
              if (await confirmDialog({ title: `${u.name} verwijderen?`, message: 'Inloggen kan dan niet meer. Gewerkte diensten blijven in de loonlijst.' })) {
                await run(async () => { await del(`/users/${u.id}`); toast(`${u.name} verwijderd.`); await list.reload(); });
              }
            }}>Verwijderen</button></div></td></tr>`)}</tbody></table></div>
    </${Loading}>
    ${editing ? html`<${UserDialog} user=${editing.id ? editing : null} onClose=${() => setEditing(null)} onSaved=${() => void list.reload()} />` : null}
    ${pinFor ? html`<${PinDialog} user=${pinFor} onClose=${() => setPinFor(null)} save=${async (pin) => { await patch(`/users/${pinFor.id}`, { pin }); toast(`Pincode van ${pinFor.name} gewijzigd.`); }} />` : null}
  </${Screen}>`;
}
