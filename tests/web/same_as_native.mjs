// The WebAssembly build tells every catalogue scenario's story as the native
// CLI does: the same --json line (trace digest, events, verdicts, figures)
// and the same HTML report, byte for byte, from a 32-bit clang/libc++ build
// against the native gcc/libstdc++ one.
// Usage: node same_as_native.mjs TWICE WEB_DIR [SCENARIO.toml...]
//        (run from the source tree; default: every scenarios/*.toml)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const [twice, webDir, ...given] = process.argv.slice(2);
if (!twice || !webDir) {
  console.error('usage: same_as_native.mjs TWICE WEB_DIR [SCENARIO.toml...]');
  process.exit(2);
}
const scenarios = given.length
  ? given
  : readdirSync('scenarios').filter((f) => f.endsWith('.toml')).sort().map((f) => `scenarios/${f}`);
const { load } = await import(path.resolve(webDir, 'twice_api.mjs'));
const web = await load();
const scratch = mkdtempSync(path.join(tmpdir(), 'twice-web-'));
let differing = 0;
try {
  for (const file of scenarios) {
    const reportPath = path.join(scratch, 'report.html');
    const native = spawnSync(twice, ['run', file, '--json', '--quiet', '--report', reportPath], {
      encoding: 'utf8', maxBuffer: 1 << 30,
    });
    const ours = web.run(readFileSync(file, 'utf8'), { name: file, report: true });
    const problems = [];
    if (ours.exitCode !== native.status) problems.push(`exit ${ours.exitCode}, native ${native.status}`);
    if (ours.stderr !== native.stderr.replace(/\n$/, '')) problems.push(`stderr differs:\n${ours.stderr}\n--- native:\n${native.stderr}`);
    const nativeSummary = native.stdout.trim() ? JSON.parse(native.stdout) : null;
    if (!isDeepStrictEqual(ours.summary, nativeSummary)) {
      const keys = new Set([...Object.keys(ours.summary ?? {}), ...Object.keys(nativeSummary ?? {})]);
      const differ = [...keys].filter((k) => !isDeepStrictEqual(ours.summary?.[k], nativeSummary?.[k]));
      problems.push(`--json differs in ${differ.join(', ')}: ${differ.slice(0, 3).map((k) => `${k}: ${String(JSON.stringify(ours.summary?.[k])).slice(0, 200)} native ${String(JSON.stringify(nativeSummary?.[k])).slice(0, 200)}`).join('; ')}`);
    }
    const nativeReport = native.status === 2 ? null : readFileSync(reportPath, 'utf8');
    if (ours.reportHtml !== nativeReport) problems.push('the HTML report differs');
    rmSync(reportPath, { force: true });
    if (problems.length) {
      ++differing;
      console.log(`${file}: ${problems.join('; ')}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (differing) {
  console.log(`web: ${differing} of ${scenarios.length} scenarios differ from ${twice}`);
  process.exit(1);
}
console.log(`web: ${scenarios.length} scenarios, --json and report identical under ${twice} and the WebAssembly build`);
