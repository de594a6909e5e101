// The npm package (build-web/twice-sim-*.tgz, scripts/web.sh) as a team with
// JavaScript workers would use it: installed offline from the tarball into
// an empty project, imported by name, run on catalogue files under
// `node --test`.
// Usage: TWICE_PACKAGE=build-web/twice-sim-0.1.0.tgz node --test tests/web/package.test.mjs
//        (from the source tree)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

const tarball = path.resolve(process.env.TWICE_PACKAGE ?? '');
const scenario = (name) => readFileSync(`scenarios/${name}.toml`, 'utf8');
let project;
let twice;

before(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'twice-package-'));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'queue-tests', private: true, type: 'module' }));
  // --offline: the package has no dependencies, so nothing is fetched.
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], { cwd: project, stdio: 'inherit' });
  // Imported by name from the project, as its tests would.
  const entry = execFileSync('node', ['--input-type=module', '-e', "console.log(import.meta.resolve('twice-sim'))"],
    { cwd: project, encoding: 'utf8' }).trim();
  twice = await import(entry);
});
after(() => rmSync(project, { recursive: true, force: true }));

test('the double refund: the CLI digest, both refunds, no_double_payment violated', async () => {
  const r = await twice.run(scenario('double_refund'), { name: 'scenarios/double_refund.toml' });
  assert.equal(r.exitCode, 0);  // its [expect] names the violations
  assert.equal(r.digest, 'edff91e1dfb26e4f');
  assert.equal(r.verdicts.find((v) => v.name === 'no_double_payment').held, false);
  assert.match(r.timeline, /refund re_1 committed/);
  assert.match(r.timeline, /refund re_2 committed/);
  assert.equal(r.reportHtml.match(/data-amount-cents=/g).length, 2);
});

test('with a stable key every invariant holds', async () => {
  const r = await twice.run(scenario('double_refund').replace('key = "none"', 'key = "stable"'));
  assert.ok(r.verdicts.length > 5);
  assert.ok(r.verdicts.every((v) => v.held), JSON.stringify(r.verdicts.filter((v) => !v.held)));
});

test('a bad file: exit 2 and the error at its line and column', async () => {
  const r = await twice.run('seed = 1\n[broker\n', { name: 'bad.toml' });
  assert.equal(r.exitCode, 2);
  assert.equal(r.digest, null);
  assert.match(r.errors, /^bad\.toml:2:\d+: /m);
});

test('lint warns of the write without a key', async () => {
  const r = await twice.lint(scenario('double_refund'));
  assert.equal(r.exitCode, 1);
  assert.match(r.warnings, /write_without_key/);
});

test('explore finds and shrinks the email sent twice once claim is off', async () => {
  const r = await twice.explore(scenario('email_no_dedupe_fixed').replace('claim = true', 'claim = false'), { runs: 200 });
  assert.equal(r.exitCode, 1);
  assert.ok(Object.keys(r.repros).some((name) => name.includes('one_effect_per_step')), Object.keys(r.repros).join(' '));
});
