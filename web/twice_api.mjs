// twice in JavaScript: the WebAssembly module (build-web/web/twice.mjs and
// twice.wasm, made by scripts/web.sh) behind three functions that take a
// scenario's text and return what `twice run`, `twice lint` and
// `twice explore` print and write. Runs in a page, a Web Worker and Node;
// nothing leaves the machine.
//
//   import { load } from './twice_api.mjs';
//   const twice = await load();
//   const r = twice.run(text, { name: 'double_refund.toml', report: true });
//   r.exitCode, r.summary.trace_digest, r.summary.invariants, r.reportHtml

// Where the module finds twice.wasm. In Node, emscripten 3.1.6's ES module
// output also reaches for require() and __dirname, which an ES module does
// not have (both are given, for the module's folder), and would fetch() a
// file path; so Node reads twice.wasm itself and hands over the bytes.
async function moduleOptions(moduleUrl) {
  const url = new URL(moduleUrl, import.meta.url);
  if (typeof process === 'undefined' || !process.versions || !process.versions.node) {
    return { locateFile: (file) => new URL(file, url).href };  // a page or a worker: beside twice.mjs
  }
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  const { readFileSync } = await import('node:fs');
  const path = await import('node:path');
  const folder = path.dirname(fileURLToPath(url));
  if (typeof globalThis.require !== 'function') globalThis.require = createRequire(url);
  if (typeof globalThis.__dirname !== 'string') globalThis.__dirname = folder;
  return {
    locateFile: (file) => path.join(folder, file),
    wasmBinary: readFileSync(path.join(folder, 'twice.wasm')),
  };
}

export async function load(moduleUrl = './twice.mjs') {
  const options = await moduleOptions(moduleUrl);
  const { default: createTwice } = await import(new URL(moduleUrl, import.meta.url).href);
  let sink = null;
  const module = await createTwice({
    ...options,
    print: (line) => sink && sink.out.push(line),
    printErr: (line) => sink && sink.err.push(line),
  });
  const fs = module.FS;
  let runs = 0;

  // One command in a fresh folder of the in-memory file system, its working
  // directory while it runs and removed after: a page can run thousands
  // without filling memory, and a file named `scenarios/x.toml` is read and
  // reported under that name, as `twice run scenarios/x.toml` has it.
  function command(request, files, outputs) {
    const dir = `/run${++runs}`;
    fs.mkdir(dir);
    fs.chdir(dir);
    sink = { out: [], err: [] };
    try {
      for (const [name, text] of Object.entries(files)) {
        makeParents(name);
        fs.writeFile(name, text);
      }
      const exitCode = module.ccall('twice_command', 'number', ['string'], [JSON.stringify(request)]);
      const result = { exitCode, stdout: sink.out.join('\n'), stderr: sink.err.join('\n') };
      for (const [key, name] of Object.entries(outputs)) result[key] = exists(name) ? readTree(name) : null;
      return result;
    } finally {
      sink = null;
      fs.chdir('/');
      removeTree(dir);
    }
  }
  function makeParents(name) {
    const parts = name.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; ++i) {
      const folder = parts.slice(0, i).join('/');
      if (!exists(folder)) fs.mkdir(folder);
    }
  }
  // A file's text, or a folder's files' texts by name.
  function readTree(path) {
    if (!fs.isDir(fs.stat(path).mode)) return fs.readFile(path, { encoding: 'utf8' });
    const texts = {};
    for (const entry of fs.readdir(path)) if (entry !== '.' && entry !== '..') texts[entry] = readTree(`${path}/${entry}`);
    return texts;
  }
  function exists(path) {
    try {
      fs.stat(path);
      return true;
    } catch {
      return false;
    }
  }
  function removeTree(path) {
    if (fs.isDir(fs.stat(path).mode)) {
      for (const entry of fs.readdir(path)) if (entry !== '.' && entry !== '..') removeTree(`${path}/${entry}`);
      fs.rmdir(path);
    } else {
      fs.unlink(path);
    }
  }
  const fileName = (options) => options.name || 'scenario.toml';

  return {
    // `twice run FILE --json --quiet [--report F] [--seed N]`.
    run(text, options = {}) {
      const name = fileName(options);
      const r = command(
        {
          command: 'run', files: [name], json: true, quiet: true,
          ...(options.report ? { report: 'report.html' } : {}),
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
        },
        { [name]: text }, { reportHtml: 'report.html' });
      r.summary = r.exitCode === 2 ? null : JSON.parse(r.stdout);
      return r;
    },
    // `twice run FILE`: the story as the terminal shows it (settings,
    // timeline, verdicts), on stdout.
    story(text, options = {}) {
      const name = fileName(options);
      return command(
        { command: 'run', files: [name], ...(options.seed !== undefined ? { seed: options.seed } : {}) },
        { [name]: text }, {});
    },
    // `twice lint FILE`: warnings and errors on stderr, with file:line:column.
    lint(text, options = {}) {
      const name = fileName(options);
      return command({ command: 'lint', files: [name] }, { [name]: text }, {});
    },
    // `twice explore FILE --runs N --json --out explore-out`, on this one
    // thread; `repros` holds the files it wrote there, by name.
    explore(text, options = {}) {
      const name = fileName(options);
      const r = command(
        {
          command: 'explore', file: name, runs: options.runs ?? 100, json: true, out: 'explore-out',
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
        },
        { [name]: text }, { repros: 'explore-out' });
      r.result = r.exitCode === 2 ? null : JSON.parse(r.stdout);
      return r;
    },
  };
}

// The same, as one module-wide instance loaded on first use: the shape a
// test in Node wants (BullMQ or Bee-Queue teams testing their settings).
//
//   import { run } from 'twice-sim';
//   const { digest, verdicts, timeline, reportHtml } = await run(text);
let shared = null;
const instance = () => (shared ??= load());

// `twice run`: the trace digest, the invariants' verdicts (name, held,
// judged, detail, evidence), the terminal's timeline, the HTML report, and
// the whole --json line as `summary`; a bad file gives exitCode 2, no
// summary, and its located errors in `errors`.
export async function run(scenarioText, options = {}) {
  const twice = await instance();
  const r = twice.run(scenarioText, { ...options, report: options.report ?? true });
  const story = r.exitCode === 2 ? null : twice.story(scenarioText, options);
  return {
    exitCode: r.exitCode,
    digest: r.summary?.trace_digest ?? null,
    verdicts: r.summary?.invariants ?? [],
    timeline: story?.stdout ?? '',
    reportHtml: r.reportHtml,
    summary: r.summary,
    errors: r.stderr,
  };
}

// `twice lint`: exit code 0 (clean), 1 (warnings, in `warnings`), 2 (errors).
export async function lint(scenarioText, options = {}) {
  const r = (await instance()).lint(scenarioText, options);
  return { exitCode: r.exitCode, warnings: r.stdout, errors: r.stderr };
}

// `twice explore` with a run budget (`runs`, default 100): the result as
// explore.json has it, and the repro files it wrote, by name.
export async function explore(scenarioText, options = {}) {
  const r = (await instance()).explore(scenarioText, options);
  return { exitCode: r.exitCode, result: r.result, repros: r.repros ?? {}, errors: r.stderr };
}
