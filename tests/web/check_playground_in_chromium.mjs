// The playground as a person uses it, in headless Chromium driven over the
// DevTools protocol: served from a static server on 127.0.0.1 that this
// script starts and stops, it loads the double refund, runs it and finds
// both refunds and the violated no_double_payment in the page; sets the key
// to "stable", reruns, and finds every invariant held; then breaks the fixed
// email scenario (claim = false), explores 200 runs and finds a shrunk
// repro. Chromium and the server are stopped by PID, even on failure; a
// screenshot of the first run is left in OUT_DIR.
// Usage: node check_playground_in_chromium.mjs SITE_DIR OUT_DIR
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const WebSocket = require('/usr/share/nodejs/ws');  // Debian's node-ws (scripts/web.sh installs it)

const [siteArg, outDir] = process.argv.slice(2);
if (!siteArg || !outDir) {
  console.error('usage: check_playground_in_chromium.mjs SITE_DIR OUT_DIR');
  process.exit(2);
}
const siteDir = path.resolve(siteArg);
mkdirSync(outDir, { recursive: true });
const chromiumBin = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromiumBin) {
  console.error('FAIL: Chromium is not installed (scripts/setup.sh installs it); this test never passes by skipping.');
  process.exit(1);
}

// The static server: the site's files, nothing else, no network beyond 127.0.0.1.
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const requested = [];
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  requested.push(url.pathname);
  const file = path.join(siteDir, path.normalize(url.pathname).replace(/^(\.\.[/\\])+/, ''));
  if (!file.startsWith(siteDir) || !existsSync(file) || statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
  createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const profile = mkdtempSync(path.join(tmpdir(), 'twice-playground-'));
const chromium = spawn(chromiumBin, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
  `--user-data-dir=${profile}`, '--remote-debugging-port=0', '--window-size=1280,900', 'about:blank'],
  // Its own process group, so stop() ends Chromium's helpers with it.
  { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HOME: profile }, detached: true });
let failures = 0;
const check = (what, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : `: ${detail}`}`);
  if (!ok) ++failures;
};

async function stop() {
  if (chromium.exitCode === null && chromium.signalCode === null) {
    const exited = new Promise((resolve) => chromium.once('exit', resolve));
    try {
      process.kill(-chromium.pid, 'SIGKILL');
    } catch {
      chromium.kill('SIGKILL');
    }
    await exited;
  }
  server.close();
  server.closeAllConnections?.();
  rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
const deadline = setTimeout(() => {
  console.error('FAIL: the playground test ran out of time (180 s)');
  stop().finally(() => process.exit(1));
}, 180_000);

try {
  const browserUrl = await new Promise((resolve, reject) => {
    let text = '';
    chromium.stderr.on('data', (chunk) => {
      text += chunk;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]);
    });
    chromium.on('exit', (code) => reject(new Error(`Chromium exited (${code}) before listening: ${text}`)));
  });
  const ws = new WebSocket(browserUrl);
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  let nextId = 0;
  const pending = new Map();
  const consoleLines = [];
  ws.on('message', (raw) => {
    const message = JSON.parse(raw);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      message.error ? reject(new Error(JSON.stringify(message.error))) : resolve(message.result);
    } else if (message.method === 'Runtime.exceptionThrown') {
      consoleLines.push(JSON.stringify(message.params.exceptionDetails).slice(0, 500));
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  await page('Page.enable');
  await page('Runtime.enable');
  const evaluate = async (expression) => {
    const r = await page('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(r.exceptionDetails).slice(0, 400)}`);
    return r.result.value;
  };
  const waitFor = async (expression, what, ms = 60_000) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (await evaluate(expression).catch(() => false)) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`waited ${ms / 1000} s for ${what}; status: ${await evaluate("document.getElementById('status')?.textContent")}; ${consoleLines.join(' ')}`);
  };

  await page('Page.navigate', { url: `${base}/index.html?scenario=double_refund` });
  await waitFor("document.getElementById('status')?.textContent === 'ready'", 'the page to load');
  check('the picker offers the whole catalogue', await evaluate("document.getElementById('picker').options.length") > 50);
  check('the editor holds double_refund.toml', await evaluate("document.getElementById('text').value.includes('key = \"none\"')"));

  // The double refund, as it happened.
  await evaluate("document.getElementById('run').click()");
  await waitFor("document.body.dataset.ran === '1'", 'the first run');
  const verdict = (name) => evaluate(`document.querySelector('#verdicts tr[data-invariant="${name}"]')?.dataset.verdict`);
  check('no_double_payment is shown violated', await verdict('no_double_payment') === 'violated');
  check('ledgers_agree is shown violated', await verdict('ledgers_agree') === 'violated');
  check('the timeline tells both refunds',
    await evaluate("(t => t.includes('refund re_1 committed') && t.includes('refund re_2 committed'))(document.getElementById('story').textContent)"));
  check('the report in the page draws both refunds', await evaluate(
    "document.getElementById('report').contentDocument.querySelectorAll('[data-amount-cents]').length") === 2);
  check('the digest is the CLI\'s', await evaluate("document.getElementById('digest').textContent") === 'edff91e1dfb26e4f');
  // A figure for the README (a benchmark, never asserted): lint, run with
  // its report, and the story, in the Web Worker.
  console.log(`     the double refund ran in ${await evaluate('document.body.dataset.lastRunMs')} ms`);
  const shot = await page('Page.captureScreenshot', { format: 'png' });
  writeFileSync(path.join(outDir, 'playground.png'), Buffer.from(shot.data, 'base64'));

  // The fix: one stable key per step.
  await evaluate(`(() => { const t = document.getElementById('text');
    t.value = t.value.replace('key = "none"', 'key = "stable"'); t.dispatchEvent(new Event('input')); })()`);
  await evaluate("document.getElementById('run').click()");
  await waitFor("document.body.dataset.ran === '2'", 'the second run');
  const verdicts = await evaluate("[...document.querySelectorAll('#verdicts tbody tr')].map(r => r.dataset.verdict)");
  check('with key = "stable" every invariant holds', verdicts.length > 5 && verdicts.every((v) => v === 'held'), verdicts.join(' '));
  check('and the vendor refunded once', await evaluate(
    "document.getElementById('report').contentDocument.querySelectorAll('[data-amount-cents]').length") === 1);

  // A bad scenario: the error names its line and the editor marks it.
  await evaluate(`(() => { const t = document.getElementById('text'); t.value = 'seed = 1\\n[broker\\n';
    t.dispatchEvent(new Event('input')); })()`);
  await evaluate("document.getElementById('run').click()");
  await waitFor("document.getElementById('status').textContent === 'the scenario has errors'", 'the error');
  check('the error says line 2', await evaluate("document.getElementById('problems').textContent.includes('line 2')"));
  check('and line 2 is marked in the editor', await evaluate("document.querySelector('#backdrop mark')?.textContent === '[broker'"));

  // Explore: the fixed email scenario with its fix undone.
  await evaluate(`(() => { const p = document.getElementById('picker'); p.value = 'email_no_dedupe_fixed';
    p.dispatchEvent(new Event('change')); const t = document.getElementById('text');
    t.value = t.value.replace('claim = true', 'claim = false'); t.dispatchEvent(new Event('input'));
    document.getElementById('runs').value = '200'; document.getElementById('explore').click(); })()`);
  await waitFor("document.body.dataset.explored === '1'", 'explore');
  check('explore shrank a repro for one_effect_per_step', await evaluate(
    "[...document.querySelectorAll('.repro strong')].some(s => s.textContent.includes('one_effect_per_step'))"));
  check('the page asked for nothing beyond its own files', requested.every((p) => !p.includes('//')), requested.join(' '));
  ws.close();
} catch (error) {
  check('the playground test ran to its end', false, error.message);
} finally {
  clearTimeout(deadline);
  await stop();
}
if (failures) {
  console.error(`playground: ${failures} check(s) failed`);
  process.exit(1);
}
console.log('playground: run, fix, error and explore all work in Chromium');
