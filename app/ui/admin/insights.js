// Insights for the manager (chart.js): the order forecast beside its history and how far to trust
// it, top products, menu engineering (classic and waste-adjusted) and waste per reason.
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { get } from '../lib/api.js';
import { day, euro, num } from '../lib/format.js';
import { Loading, Screen, useAsync } from '../components/ui.js';

/** chart.js's UMD build sets globalThis.Chart; loaded once, on first use. */
let chartLib = null;
const loadChart = async () => {
  if (!chartLib) {
    await import('/app/vendor/chart.umd.js');
    chartLib = /** @type {any} */ (globalThis).Chart;
  }
  return chartLib;
};

/** One chart.js chart in a box; re-drawn when `config` changes. */
function ChartBox({ id, config }) {
  const ref = useRef(/** @type {HTMLCanvasElement|null} */ (null));
  useEffect(() => {
    let chart;
    let gone = false;
    void loadChart().then((Chart) => {
      if (gone || !ref.current) return;
      chart = new Chart(ref.current, { ...config, options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options } });
      ref.current.dataset.rendered = 'true';
    });
    return () => {
      gone = true;
      chart?.destroy();
    };
  }, [JSON.stringify(config.data)]);
  return html`<div class="chart-box"><canvas id=${id} ref=${ref}></canvas></div>`;
}

const CLASS = { star: 'Ster', plowhorse: 'Werkpaard', puzzle: 'Puzzel', dog: 'Hond' };
const COLORS = ['#1d4ed8', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];

export default function Insights() {
  const [days, setDays] = useState(28);
  const forecast = useAsync(() => get('/forecast/orders?days=14'));
  const top = useAsync(() => get(`/analytics/top-products?days=${days}`), [days]);
  const me = useAsync(() => get(`/analytics/menu-engineering?days=${days}`), [days]);
  const waste = useAsync(() => get(`/waste/stats?days=${days}`).catch(() => null), [days]);
  const f = forecast.data;
  return html`<${Screen} title="Inzichten" id="insights" actions=${html`<label class="sr-only" for="insights-days">Periode</label><select id="insights-days" value=${String(days)} onChange=${(e) => setDays(Number(e.currentTarget.value))} style="width:auto">
      ${[7, 28, 56, 90].map((d) => html`<option value=${String(d)}>Laatste ${d} dagen</option>`)}</select>`}>
    <h2>Verwachte bestellingen</h2>
    <${Loading} when=${forecast.loading && !f} error=${forecast.error}>
      ${f
        ? html`<p class="muted">Betrouwbaarheid: <strong>${{ low: 'laag', medium: 'redelijk', high: 'hoog' }[f.confidence]}</strong> · ${f.weeks_of_history} weken historie · trend ×${num(f.trend)}
            ${f.backtest?.mape !== null && f.backtest?.mape !== undefined ? html` · gemiddelde afwijking afgelopen 4 weken ${num(f.backtest.mape, 0)} %` : ''}</p>
          <${ChartBox} id="chart-forecast" config=${{
            type: 'line',
            data: {
              labels: [...f.history.map((h) => day(h.date)), ...f.data.map((d) => day(d.date))],
              datasets: [
                { label: 'Bestellingen', data: [...f.history.map((h) => h.orders), ...f.data.map(() => null)], borderColor: COLORS[0], backgroundColor: COLORS[0] },
                { label: 'Verwachting', data: [...f.history.map(() => null), ...f.data.map((d) => d.expected_orders)], borderColor: COLORS[2], backgroundColor: COLORS[2], borderDash: [6, 4] },
              ],
            },
          }} />`
        : null}
    </${Loading}>
    <div class="grid" style="margin-top:1rem">
      <div><h2>Topproducten</h2>
        <${Loading} when=${top.loading && !top.data} error=${top.error}>
          ${top.data ? html`<${ChartBox} id="chart-top" config=${{ type: 'bar', data: { labels: top.data.data.slice(0, 10).map((p) => p.name), datasets: [{ label: 'Verkocht', data: top.data.data.slice(0, 10).map((p) => p.quantity), backgroundColor: COLORS[0] }] }, options: { indexAxis: 'y' } }} />` : null}
        </${Loading}></div>
      <div><h2>Derving per reden</h2>
        <${Loading} when=${waste.loading && !waste.data} error=${waste.error}>
          ${waste.data
            ? html`<p class="muted">Totaal ${euro(waste.data.total_cost_cents)}</p>
                <${ChartBox} id="chart-waste" config=${{ type: 'doughnut', data: { labels: waste.data.by_reason.map((r) => r.reason), datasets: [{ data: waste.data.by_reason.map((r) => r.cost_cents), backgroundColor: COLORS }] } }} />`
            : html`<p class="muted">Nog geen derving vastgelegd.</p>`}
        </${Loading}></div>
    </div>
    <h2>Menu-engineering</h2>
    <${Loading} when=${me.loading && !me.data} error=${me.error}>
      ${me.data
        ? html`<p class="muted">Populair vanaf ${num(me.data.thresholds.popularity_percent)} % van de verkochte gerechten; hoge marge vanaf ${euro(me.data.thresholds.margin_cents)}.</p>
          <${ChartBox} id="chart-menu" config=${{
            type: 'scatter',
            data: { datasets: ['star', 'plowhorse', 'puzzle', 'dog'].map((c, i) => ({ label: CLASS[c], backgroundColor: COLORS[i], data: me.data.data.filter((p) => p.class === c).map((p) => ({ x: p.quantity, y: p.margin_cents / 100 })) })) },
            options: { scales: { x: { title: { display: true, text: 'Verkocht' } }, y: { title: { display: true, text: 'Marge (€)' } } } },
          }} />
          <div class="table-wrap"><table class="list" id="menu-engineering"><thead><tr><th>Gerecht</th><th class="num">Verkocht</th><th class="num">Marge</th><th>Klasse</th><th class="num">Marge na derving</th><th>Klasse na derving</th></tr></thead>
            <tbody>${me.data.data.map((p) => html`<tr><td>${p.name}</td><td class="num">${p.quantity}</td><td class="num">${euro(p.margin_cents)}</td><td>${CLASS[p.class]}</td><td class="num">${euro(p.adjusted_margin_cents)}</td><td>${CLASS[p.adjusted_class]}</td></tr>`)}</tbody></table></div>`
        : null}
    </${Loading}>
  </${Screen}>`;
}
