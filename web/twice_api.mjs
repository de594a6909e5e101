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

// In Node, emscripten 3.1.6's ES module output reaches for require() and
// __dirname (its file system and where twice.wasm is), which an ES module
// does not have: both are given, for the module's folder.
async function nodeGlobals(moduleUrl) {
  // In a page or a worker: twice.wasm beside twice.mjs.
  if (typeof process === 'undefined' || !process.versions || !process.versions.node) {
    return (file) => new URL(file, new URL(moduleUrl, import.meta.url)).href;
  }
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  const path = await import('node:path');
  const url = new URL(moduleUrl, import.meta.url);
  if (typeof globalThis.require !== 'function') globalThis.require = createRequire(url);
  if (typeof globalThis.__dirname !== 'string') globalThis.__dirname = path.dirname(fileURLToPath(url));
  // Where twice.wasm is, as a path: Node reads a file, not a file: URL.
  return (file) => path.join(path.dirname(fileURLToPath(url)), file);
}

export async function load(moduleUrl = './twice.mjs') {
  const locateFile = await nodeGlobals(moduleUrl);
  const { default: createTwice } = await import(new URL(moduleUrl, import.meta.url).href);
  let sink = null;
  const module = await createTwice({
    locateFile,
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
