// Runs inside bench:report's page: draws the inlined data with uPlot (no network).
(function () {
  const data = JSON.parse(document.getElementById('data').textContent);
  const colors = ['#3056d3', '#d33f30', '#2a9d5c', '#b07d12', '#7a3fd3', '#1a9fb0'];
  const width = Math.min(1060, document.body.clientWidth - 20);
  const el = (id) => document.getElementById(id);
  const empty = (id, what) => { const p = document.createElement('p'); p.className = 'empty'; p.textContent = `No results yet: ${what}.`; el(id).append(p); };
  const plot = (id, opts, d) => new uPlot({ width, height: 300, ...opts }, d, el(id));
  /** One x grid for several series with their own x: each series' y at the grid points (null elsewhere). */
  function merge(seriesPoints) {
    const xs = [...new Set(seriesPoints.flatMap((pts) => pts.map((p) => p[0])))].sort((a, b) => a - b);
    return [xs, ...seriesPoints.map((pts) => { const m = new Map(pts); return xs.map((x) => (m.has(x) ? m.get(x) : null)); })];
  }
  el('meta').textContent = `${data.runs.length} results; generated ${data.generated}`;

  // First-audio latency: empirical CDF from the samples (or the p50/p95/max points when a run kept none).
  if (data.latency.length) {
    const top = Math.max(...data.latency.map((s) => s.max));
    const xs = Array.from({ length: 201 }, (_, i) => Math.round((top * i) / 200 * 10) / 10);
    const ys = data.latency.map((s) => {
      if (s.samples) { const v = [...s.samples].sort((a, b) => a - b); return xs.map((x) => { let n = 0; while (n < v.length && v[n] <= x) n++; return n / v.length; }); }
      const pts = [[0, 0], [s.p50, 0.5], [s.p95, 0.95], [s.max, 1]];
      return xs.map((x) => { for (let i = 1; i < pts.length; i++) if (x <= pts[i][0]) { const [x0, y0] = pts[i - 1]; const [x1, y1] = pts[i]; return x1 === x0 ? y1 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0); } return 1; });
    });
    plot('latency', { scales: { x: { time: false } }, axes: [{ label: 'ms' }, { label: 'fraction of requests' }],
      series: [{ label: 'ms' }, ...data.latency.map((s, i) => ({ label: `${s.label} (p50 ${s.p50}, p95 ${s.p95})`, stroke: colors[i % colors.length], width: 2 }))] }, [xs, ...ys]);
  } else empty('latency', 'npm run bench, bench:ws, bench:hts or bench:client');

  if (data.rtf.length) {
    plot('rtf', { axes: [{}, { label: 'real-time factor' }], series: [{}, ...data.rtf.map((s, i) => ({ label: s.label, stroke: colors[i], width: 2, points: { show: true }, spanGaps: true }))] }, merge(data.rtf.map((s) => s.points)));
  } else empty('rtf', 'npm run bench or bench:hts');

  if (data.throughput.length) {
    const d = [data.throughput.map((p) => p[0]), data.throughput.map((p) => p[1]), data.throughput.map((p) => p[2])];
    plot('throughput', { scales: { x: { time: false } }, axes: [{ label: 'concurrent streams' }, { label: 'per second' }],
      series: [{ label: 'streams' }, { label: 'requests/s', stroke: colors[0], width: 2, points: { show: true } }, { label: 'audio seconds/s', stroke: colors[1], width: 2, points: { show: true } }] }, d);
  } else empty('throughput', 'npm run bench');

  if (data.eld.length) {
    const names = [...new Set(data.eld.map((p) => p.series))];
    plot('eld', { axes: [{}, { label: 'ms' }], series: [{}, ...names.map((n, i) => ({ label: n, stroke: colors[i % colors.length], width: 2, points: { show: true }, spanGaps: true }))] },
      merge(names.map((n) => data.eld.filter((p) => p.series === n).map((p) => [p.x, p.y]))));
  } else empty('eld', 'npm run bench or bench:ws');

  if (data.rss.length) {
    plot('rss', { scales: { x: { time: false } }, axes: [{ label: 's' }, { label: 'MB' }], series: [{ label: 's' }, { label: `RSS (${data.rssFile})`, stroke: colors[0], width: 2 }] },
      [data.rss.map((p) => p[0]), data.rss.map((p) => p[1])]);
  } else empty('rss', 'npm run soak');

  if (data.compare) {
    const table = document.createElement('table');
    table.innerHTML = '<thead><tr><th>figure</th><th></th><th></th><th>ratio B/A</th></tr></thead>';
    table.tHead.rows[0].cells[1].textContent = `A: ${data.compare.a}`;
    table.tHead.rows[0].cells[2].textContent = `B: ${data.compare.b}`;
    const body = table.createTBody();
    for (const [k, a, b, r] of data.compare.rows) {
      const tr = body.insertRow();
      for (const v of [k, a ?? '—', b ?? '—', r ?? '—']) tr.insertCell().textContent = String(v);
      // Green when B is better: lower for times, delays, RTF and memory; higher for rates.
      const lower = /Ms(\.|$)|realTimeFactor|MB/.test(k);
      const higher = /PerSecond/.test(k);
      if (r !== null && r !== 1 && (lower || higher)) tr.cells[3].className = (r < 1) === lower ? 'down' : 'up';
    }
    el('compare').append(table);
  } else empty('compare', 'two runs of the same bench');
  window.reportReady = true;
})();
