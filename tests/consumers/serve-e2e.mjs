#!/usr/bin/env node
// End-to-end check of `portolan serve` in a real browser (Debian's chromium,
// driven by playwright-core). Starts a small upstream of ours and
// `portolan serve tests/projects/harbor` bound to it, both on loopback; opens
// the served Explorer, and through its try-it panel calls the built-in
// `catalog.search` and the HTTP-bound `berths.search`. Every request that is
// not to 127.0.0.1 is aborted and fails the run.
//
//   node tests/consumers/serve-e2e.mjs PORTOLAN_BINARY
//
// Environment: CHROMIUM (default /usr/bin/chromium).
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const bin = process.argv[2];
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
let step = 'setup';
const children = [];
function fail(msg) {
  console.error(`serve-e2e: FAIL at "${step}": ${msg}`);
  for (const c of children) c.kill('SIGTERM');
  process.exit(1);
}
function check(cond, msg) { if (!cond) throw new Error(msg); }

async function main() {
  if (!bin || !fs.existsSync(bin)) fail(`give the portolan binary (got ${bin})`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-serve-e2e-'));

  step = 'start the upstream';
  const upstreamHits = [];
  const upstream = http.createServer((req, res) => {
    upstreamHits.push(req.method + ' ' + req.url);
    if (req.method === 'GET' && req.url.startsWith('/api/berths')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ id: 'A-01', harbor: new URL(req.url, 'http://x').searchParams.get('harbor') }]));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not here"}');
  });
  await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
  const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;

  step = 'start portolan serve';
  fs.writeFileSync(path.join(tmp, 'portolan.toml'), `[server]\nupstream = "${upstreamUrl}"\n`);
  const serve = spawn(bin, ['serve', path.join(root, 'tests/projects/harbor'), '--config', path.join(tmp, 'portolan.toml'),
    '--listen', '127.0.0.1:0', '--data-dir', path.join(tmp, 'data'), '--no-cache'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(serve);
  let log = '';
  serve.stderr.on('data', (d) => { log += d; });
  const base = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no banner within 60 s: ' + out + log)), 60000);
    serve.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/portolan serve: (http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    serve.on('exit', (c) => reject(new Error(`serve exited ${c}: ${log}`)));
  });

  const context = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(tmp, 'profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const leaked = [];
  const loopback = (u) => u.startsWith('http://127.0.0.1:') || u.startsWith('data:') || u === 'about:blank';
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (loopback(url)) return route.continue();
    leaked.push(url);
    return route.abort('blockedbyclient');
  });
  const errors = [];
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  // Chromium logs every 4xx answer as a console error; the error envelope is expected here.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of 400')) errors.push('console error: ' + m.text());
  });

  async function tryTool(name, fill) {
    step = `open ${name}`;
    await page.click('#tab-tools');
    await page.fill('#q', name);
    const row = page.locator('#list-tools li').filter({ hasText: name }).first();
    await row.locator('.rh').click();
    const form = page.locator(`form.try[data-tool="${name}"]`);
    await form.waitFor({ timeout: 10000 });
    step = `call ${name}`;
    for (const [k, v] of Object.entries(fill)) await form.locator(`[name="${k}"]`).fill(v);
    await form.locator('button[type=submit]').click();
    const out = page.locator(`#${await form.getAttribute('data-out')}`);
    await page.waitForFunction((id) => document.getElementById(id).dataset.status, await form.getAttribute('data-out'), { timeout: 15000 });
    return { status: await out.getAttribute('data-status'), text: await out.textContent() };
  }

  try {
    step = 'open the served Explorer';
    await page.goto(base + '/');
    check(page.url() === base + '/api-docs/', `/ did not redirect to /api-docs/ (${page.url()})`);
    await page.waitForFunction(() => document.documentElement.dataset.ready);

    const a = await tryTool('catalog.search', { query: 'berths' });
    check(a.status === '200', `catalog.search answered ${a.status}: ${a.text}`);
    const ra = JSON.parse(a.text.slice(a.text.indexOf('\n') + 1));
    check(ra.state === 'completed' && ra.result.count > 0, `catalog.search: ${a.text}`);
    check(ra.result.hits.some((h) => h.path.startsWith('/api/berths')), 'catalog.search found no /api/berths operation');
    check(/^explorer-/.test(ra.requestId), `the panel did not make a fresh requestId (${ra.requestId})`);

    const b = await tryTool('berths.search', { harbor: 'north' });
    check(b.status === '200', `berths.search answered ${b.status}: ${b.text}`);
    const rb = JSON.parse(b.text.slice(b.text.indexOf('\n') + 1));
    check(rb.result.body[0].id === 'A-01' && rb.result.body[0].harbor === 'north', `berths.search: ${b.text}`);
    check(upstreamHits.some((h) => h === 'GET /api/berths?harbor=north'), `the upstream saw ${upstreamHits.join(', ')}`);

    step = 'the error envelope is shown';
    const c = await tryTool('events.search', { query: 'berth', limit: '0' });
    check(c.status === '400' && c.text.includes('TOOL_VALIDATION_ERROR') && c.text.includes('/limit'), `events.search with limit 0 answered ${c.status}: ${c.text}`);

    await page.screenshot({ path: path.join(tmp, 'serve-explorer.png') });
    check(leaked.length === 0, 'requests left loopback: ' + leaked.join(', '));
    check(errors.length === 0, errors.join('; '));
    console.log(`serve-e2e: try-it called catalog.search, berths.search (upstream ${upstreamHits.length} hit) and showed an error envelope; no request left loopback; screenshot ${path.join(tmp, 'serve-explorer.png')}`);
  } catch (e) {
    await context.close();
    fail(e.message);
  }
  await context.close();
  serve.kill('SIGTERM');
  await new Promise((r) => serve.on('exit', r));
  upstream.close();
}

main().catch((e) => fail(e.stack || e.message));
