// Employees: staff log in with a PIN, admins with e-mail and password; wage and job for rosters and payroll.
import { html, useState } from '../lib/html.js';
import { del, get, patch, post } from '../lib/api.js';
import { euro } from '../lib/format.js';
import { ErrorText, Loading, Pill, Screen, useAction, useAsync } from '../components/ui.js';

export default function Users() {
  const list = useAsync(() => get('/users'));
  const [role, setRole] = useState('staff');
  const [run, busy, error] = useAction();
  return html`<${Screen} title="Medewerkers" id="users">
    <form class="tile inline" onSubmit=${(e) => {
      e.preventDefault();
      const f = Object.fromEntries(new FormData(e.currentTarget));
      const wage = f.wage ? Math.round(Number(String(f.wage).replace(',', '.')) * 100) : undefined;
      void run(async () => {
        await post('/users', { name: f.name, role, ...(role === 'staff' ? { pin: f.pin } : { email: f.email, password: f.password }), ...(wage !== undefined ? { hourly_wage_cents: wage } : {}), ...(f.job ? { job: f.job } : {}) });
        await list.reload();
      });
    }}>
      <div><label>Naam</label><input name="name" required /></div>
      <div><label>Rol</label><select value=${role} onChange=${(e) => setRole(e.currentTarget.value)}><option value="staff">Medewerker (pincode)</option><option value="admin">Beheerder</option></select></div>
      ${role === 'staff' ? html`<div><label>Pincode</label><input name="pin" inputmode="numeric" required minlength="4" maxlength="8" /></div>` : html`<div><label>E-mail</label><input name="email" type="email" required /></div><div><label>Wachtwoord</label><input name="password" type="password" required /></div>`}
      <div><label>Uurloon (€)</label><input name="wage" inputmode="decimal" /></div>
      <div><label>Functie</label><input name="job" placeholder="keuken, bediening" /></div>
      <button type="submit" class="primary" disabled=${busy}>Toevoegen</button>
    </form>
    <${ErrorText} text=${error} />
    <${Loading} when=${list.loading && !list.data} error=${list.error}>
      <table class="list"><thead><tr><th>Naam</th><th>Rol</th><th>Functie</th><th class="num">Uurloon</th><th></th></tr></thead>
        <tbody>${(list.data?.data ?? []).map((u) => html`<tr><td>${u.name}${u.email ? html`<br /><span class="muted">${u.email}</span>` : null}</td><td>${u.role === 'admin' ? html`<${Pill} kind="gereserveerd">beheerder</${Pill}>` : 'medewerker'}</td><td>${u.job ?? ''}</td>
          <td class="num">${u.hourly_wage_cents ? euro(u.hourly_wage_cents) : '–'}</td>
          <td>${u.role === 'staff' ? html`<button type="button" disabled=${busy} onClick=${() => { const pin = prompt(`Nieuwe pincode voor ${u.name}`); if (pin) void run(async () => { await patch(`/users/${u.id}`, { pin }); }); }}>Pincode</button>` : null}
            <button type="button" class="danger" disabled=${busy} onClick=${() => run(async () => { await del(`/users/${u.id}`); await list.reload(); })}>Verwijderen</button></td></tr>`)}</tbody></table>
    </${Loading}>
  </${Screen}>`;
}
