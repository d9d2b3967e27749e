// npm run bench:report: real runs of two benches (few requests) into a temporary
// results folder, the report built from them and opened in headless Chromium with
// every network request refused: the plots draw from what the page carries.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { chromium } from 'playwright-core';
import { repoRoot, tempDir } from '../helpers/server.js';

const CHROMIUM = process.env.SAWT_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  t.skip(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set SAWT_CHROMIUM)`);
  process.exit(0);
}

const dir = tempDir(t, 'sawt-bench-report-');
const env = { ...process.env, SAWT_BENCH_RESULTS_DIR: dir };
const run = (script, extra) => execFileSync(process.execPath, [path.join(repoRoot, 'bench', script)], { env: { ...env, ...extra }, stdio: 'ignore', timeout: 240_000 });
run('run.js', { BENCH_REQUESTS: '6', BENCH_CONCURRENCY: '1,2' });
run('run.js', { BENCH_REQUESTS: '6', BENCH_CONCURRENCY: '1,2' });
run('client.js', { BENCH_REQUESTS: '4' });
const out = path.join(dir, 'report.html');
const log = execFileSync(process.execPath, [path.join(repoRoot, 'bench/report.js'), '--dir', dir, '--out', out], { encoding: 'utf8' });

t.test('the report is one self-contained page with the plots and the comparison', async (t) => {
  t.match(log, /3 results/);
  const html = readFileSync(out, 'utf8');
  t.notMatch(html, /<script[^>]+src=|<link[^>]+href=/, 'no external script or stylesheet');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  const requested = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requested.push(url);
    return route.abort();
  });
  await page.goto(`file://${out}`);
  await page.waitForFunction(() => window.reportReady === true, null, { timeout: 20000 });
  t.same(errors, [], 'no script error');
  t.same(requested, [], 'nothing fetched from the network');
  for (const id of ['latency', 'rtf', 'throughput', 'eld']) t.equal(await page.locator(`#${id} canvas`).count(), 1, `${id} plotted`);
  const legend = await page.locator('#latency .u-legend').textContent();
  t.match(legend, /sawt-mini · HTTP stream/);
  t.match(legend, /HTTP via @sawt\/client/);
  t.match(await page.locator('#throughput .u-legend').textContent(), /requests\/s/);
  t.match(await page.locator('#rss').textContent(), /No results yet: npm run soak/, 'no soak run: says which command fills it');
  const rows = await page.locator('#compare tbody tr').count();
  t.ok(rows > 10, `${rows} figures compared`);
  const head = await page.locator('#compare thead').textContent();
  t.match(head, /A: tts-http-.*B: tts-http-/, 'the two latest runs of the same bench');
  const ratio = await page.locator('#compare tbody tr', { hasText: 'sequential.firstByteMs.p50' }).locator('td').nth(3).textContent();
  t.ok(Number(ratio) > 0, `first byte p50 ratio ${ratio}`);
  mkdirSync(path.join(repoRoot, 'test-artifacts'), { recursive: true });
  await page.screenshot({ path: path.join(repoRoot, 'test-artifacts/bench-report.png'), fullPage: true });
});
