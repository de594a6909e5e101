#!/usr/bin/env bash
# The WebAssembly build: the core libraries (no CLI11, tests or install
# rules: TWICE_BUILD_CLI=OFF) and web/src/twice_web.cpp, compiled by
# Debian's emscripten into build-web/, and web/ filled with twice.js and
# twice.wasm. Usage: bash scripts/web.sh [Release|Debug]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# emscripten 3.1.6 (its optimiser runs on Node with Debian's node-acorn), and
# node-ws for the playground's browser test (tests/web/).
ensure_packages emscripten node-acorn node-ws
export NODE_PATH=/usr/share/nodejs

build_type=${1:-Release}
out=build-web
# Only the header-only libraries, never the host's /usr/include (its C
# library headers are glibc's, not the target's).
staging=$out/staging/include
mkdir -p "$staging"
for header in fmt toml++ nlohmann xxhash.h; do
  ln -sfn "/usr/include/$header" "$staging/$header"
done

emcmake cmake -S . -B "$out" -DCMAKE_BUILD_TYPE="$build_type" -DTWICE_BUILD_CLI=OFF -DTWICE_BUILD_TESTS=OFF \
  -DTWICE_INSTALL=OFF -DTWICE_LAYER_LINK_CHECKS=OFF -DTWICE_WERROR=ON \
  -DTWICE_STAGING_INCLUDE="$PWD/$staging" >/dev/null
cmake --build "$out" -j2

# The site: the page, its Web Worker, the module and the catalogue, each
# incident followed by its fixed twin. Serve it from any static server
# (python3 -m http.server -d build-web/site) and open index.html.
site=$out/site
rm -rf "$site"
mkdir -p "$site"
cp web/index.html web/worker.mjs web/twice_api.mjs "$out/web/twice.mjs" "$out/web/twice.wasm" "$site/"
node - scenarios "$site/catalogue.json" <<'JS'
const fs = require('fs');
const [dir, out] = process.argv.slice(2);
const names = fs.readdirSync(dir).filter((f) => f.endsWith('.toml')).map((f) => f.slice(0, -5)).sort();
const ordered = [];
for (const name of names) {
  if (ordered.includes(name)) continue;
  if (name.endsWith('_fixed') && names.includes(name.slice(0, -6))) continue;  // comes after its incident
  ordered.push(name);
  if (names.includes(`${name}_fixed`)) ordered.push(`${name}_fixed`);
}
const catalogue = ordered.map((name) => ({ name, text: fs.readFileSync(`${dir}/${name}.toml`, 'utf8') }));
fs.writeFileSync(out, JSON.stringify(catalogue));
JS
echo "web: $site ($(du -sh "$site" | cut -f1)): serve it and open index.html"

# The npm package (not published anywhere): twice_api.mjs and its types over
# the module, packed by npm into build-web/twice-sim-VERSION.tgz.
package=$out/package
rm -rf "$package"
mkdir -p "$package"
cp web/package.json web/twice_api.mjs web/twice_api.d.ts "$out/web/twice.mjs" "$out/web/twice.wasm" "$package/"
(cd "$package" && npm pack --silent --pack-destination .. >/dev/null)
echo "web: $(ls "$out"/twice-sim-*.tgz): npm install it, then import { run } from 'twice-sim'"
