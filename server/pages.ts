import type { FastifyPluginAsync } from 'fastify';
import type { Role } from './config.js';
import type { TenantsService } from './modules/tenants/tenants.service.js';
import { inlineScriptsOf } from './plugins/security.js';

const page = (title: string, body: string) => `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<style>
 body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1f2328}
 h1{font-size:1.5rem} label{display:block;margin:.8rem 0 .2rem;font-weight:600}
 input{width:100%;padding:.55rem;font-size:1rem;box-sizing:border-box;border:1px solid #aab;border-radius:6px}
 button{margin-top:1.2rem;padding:.7rem 1.2rem;font-size:1rem;border:0;border-radius:6px;background:#1f6feb;color:#fff}
 .err{color:#b42318;margin-top:1rem} .ok{color:#1a7f37;margin-top:1rem} a{color:#1f6feb}
</style></head><body>${body}</body></html>`;

const SETUP = page(
  'Restaurant instellen',
  `<h1>Welkom! Stel je restaurant in</h1>
<p>Dit apparaat is nog leeg. Maak het restaurant en de eerste beheerder aan.</p>
<form id="f">
 <label for="name">Naam van het restaurant</label><input id="name" name="name" required>
 <label for="slug">Korte naam (slug, voor inloggen en de publieke menukaart)</label><input id="slug" name="slug" required pattern="[a-z0-9-]{2,48}">
 <label for="admin_email">E-mailadres beheerder</label><input id="admin_email" name="admin_email" type="email" required>
 <label for="admin_password">Wachtwoord (minimaal 10 tekens)</label><input id="admin_password" name="admin_password" type="password" minlength="10" required>
 <button type="submit">Restaurant aanmaken</button>
 <div id="msg" role="status"></div>
</form>
<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = Object.fromEntries(new FormData(e.target));
  const r = await fetch('/api/v1/setup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  const m = document.getElementById('msg');
  if (r.ok) { m.className = 'ok'; m.textContent = 'Klaar! Je kunt nu inloggen als beheerder.'; setTimeout(() => location.reload(), 1200); }
  else { m.className = 'err'; m.textContent = j.error; }
});
</script>`,
);

const HOME = page(
  'Restaurant service',
  `<h1>Restaurant service</h1>
<p>De server draait. Tablets in het restaurant verbinden met dit adres.</p>
<ul><li><a href="/app/">Personeelsapp (bestellingen)</a></li><li><a href="/api/v1/docs">API-documentatie</a></li><li><a href="/api/v1/health">Status</a></li></ul>`,
);

/** The inline scripts of these pages, allowed by hash in the Content-Security-Policy (server/plugins/security.ts). */
export const PAGES_INLINE_SCRIPTS = [...inlineScriptsOf(SETUP), ...inlineScriptsOf(HOME)];

/** The pages a person opens in a browser on the appliance: first-run setup, or a landing page. */
export const pagesRoutes: FastifyPluginAsync<{ tenants: TenantsService; role: Role }> = async (app, { tenants, role }) => {
  app.get('/', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    const needsSetup = role === 'local' && (await tenants.count()) === 0;
    return reply.type('text/html; charset=utf-8').send(needsSetup ? SETUP : HOME);
  });
};
