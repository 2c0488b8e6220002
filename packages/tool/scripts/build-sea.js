#!/usr/bin/env node
/*
 * Builds release/filigrane-mark-linux-x64: a Node single executable application (SEA) that runs
 * with neither Node nor node_modules. Steps: bundle the compiled tool with esbuild (sharp and
 * opencv.js left out), pack sharp + its native addon + libvips as an asset, generate the SEA blob,
 * inject it into a copy of this Node binary with postject. Run through `npm run build:tool`, or
 * started in the background by the first `filigrane start` (gateway/src/tool-build.ts).
 * `--out DIR` writes elsewhere than release/. Work files live in a private temporary folder; the
 * executable is written under a hidden name and renamed when complete, so the download endpoint
 * never lists half a file; `DIR/.build.lock` names the building process (one build at a time).
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const os = require('node:os');
const { parseArgs } = require('node:util');

const toolDir = path.resolve(__dirname, '..');
const { values: args } = parseArgs({ options: { out: { type: 'string' } } });
const releaseDir = path.resolve(args.out || path.join(toolDir, 'release'));
const NAME = 'filigrane-mark-linux-x64';
const output = path.join(releaseDir, NAME);
const partial = path.join(releaseDir, `.${NAME}.partial`);
const lockFile = path.join(releaseDir, '.build.lock');
const started = Date.now();

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`build:tool produces a linux-x64 executable and must run on linux-x64 (this is ${process.platform}-${process.arch})`);
  process.exit(1);
}
fs.mkdirSync(releaseDir, { recursive: true });
takeLock();
const buildDir = fs.mkdtempSync(path.join(os.tmpdir(), 'filigrane-tool-build-'));
process.on('exit', () => {
  fs.rmSync(buildDir, { recursive: true, force: true });
  fs.rmSync(partial, { force: true });
  try {
    if (JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid === process.pid) fs.rmSync(lockFile);
  } catch {
    // already gone
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

/** One build per folder: a live holder makes this one stop; a dead one's lock is replaced. */
function takeLock() {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, name: NAME, started: new Date().toISOString() }), { flag: 'wx' });
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let holder = null;
      try {
        holder = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
        process.kill(holder.pid, 0);
      } catch (e) {
        if (!holder || e.code === 'ESRCH') {
          fs.rmSync(lockFile, { force: true });
          continue;
        }
      }
      console.error(`${NAME} is already being built by process ${holder.pid} (since ${holder.started})`);
      process.exit(3);
    }
  }
  throw new Error(`cannot take ${lockFile}`);
}

// 1. Bundle: one CommonJS file, as SEA requires. sharp's JavaScript is bundled too (compiled into the
// blob's code cache: ~60 files fewer to find, read and compile at each start). Its requires of its
// platform packages (the native addon, libvips' versions), which cannot load from inside the
// executable, are asked of sea-main.ts, which loads them from the unpacked asset.
const esbuild = require('esbuild');
const nativeAddon = {
  name: 'sharp-native-addon',
  setup(build) {
    // sharp first tries its own builds from source (src/build/Release/*.node), absent here: those requires
    // fail at run time as sharp expects, without asking the executable's require (which prints a warning
    // on every run when given anything but a built-in) and without being resolved (as globs) at bundle time.
    build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/][^\\/]+\.cjs$/ }, (args) => ({
      contents: fs
        .readFileSync(args.path, 'utf8')
        .replace(/require\(`\.\.\/src\/build\//g, '__filigraneAbsent(`../src/build/')
        .replace(/require\((["`])@img\//g, 'globalThis.__filigraneSharpRequire($1@img/')
        .concat(`\nfunction __filigraneAbsent(id) { throw Object.assign(new Error("Cannot find module '" + id + "'"), { code: 'MODULE_NOT_FOUND' }); }\n`),
      loader: 'js',
    }));
  },
};
const bundled = esbuild.build({
  entryPoints: [path.join(toolDir, 'dist/src/sea-main.js')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile: path.join(buildDir, 'bundle.js'),
  external: ['@techstark/opencv-js'],
  plugins: [nativeAddon],
  logLevel: 'error',
});

bundled.then(() => {
// 2. sharp's native addon and libvips (the addon's package closure); its JavaScript is in the bundle.
// Node's resolution of a package folder (package.json may be hidden by "exports"): walk up node_modules.
function resolveFrom(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    if (path.dirname(d) === d) throw new Error(`cannot find ${name} from ${dir}`);
  }
}
const packages = new Map();
(function collect(name, fromDir) {
  const dir = resolveFrom(fromDir, name);
  if (packages.has(name)) return;
  packages.set(name, dir);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies || {})) collect(dep, dir);
  for (const dep of Object.keys(pkg.optionalDependencies || {})) {
    if (!/linux-x64$/.test(dep) || /musl/.test(dep)) continue;
    collect(dep, dir);
  }
})('@img/sharp-linux-x64', resolveFrom(toolDir, 'sharp'));
const chunks = [];
let fileCount = 0;
function addFile(rel, abs) {
  const stat = fs.statSync(abs);
  const name = Buffer.from(rel, 'utf8');
  const head = Buffer.alloc(12 + name.length);
  head.writeUInt32LE(name.length, 0);
  name.copy(head, 4);
  const data = fs.readFileSync(abs);
  head.writeUInt32LE(stat.mode, 4 + name.length);
  head.writeUInt32LE(data.length, 8 + name.length);
  chunks.push(head, data);
  fileCount++;
}
function addTree(rel, abs) {
  for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === 'src' || entry.name === 'install' || entry.name.endsWith('.md')) continue;
    const r = `${rel}/${entry.name}`;
    const a = path.join(abs, entry.name);
    const real = fs.realpathSync(a);
    if (fs.statSync(real).isDirectory()) addTree(r, real);
    else addFile(r, real);
  }
}
for (const [name, dir] of packages) addTree(`node_modules/${name}`, dir);
const pack = Buffer.concat(chunks);
fs.writeFileSync(path.join(buildDir, 'sharp.pack'), pack);
// The pack's cache folder name, computed here: a run then reads the 20 MB pack only to unpack it.
fs.writeFileSync(path.join(buildDir, 'sharp.id'), require('node:crypto').createHash('sha256').update(pack).digest('hex').slice(0, 16));

// 3. SEA blob.
const config = {
  main: path.join(buildDir, 'bundle.js'),
  output: path.join(buildDir, 'sea-prep.blob'),
  disableExperimentalSEAWarning: true,
  // The bundle's compiled code travels in the blob: startup skips compiling it.
  useCodeCache: true,
  assets: { 'sharp.pack': path.join(buildDir, 'sharp.pack'), 'sharp.id': path.join(buildDir, 'sharp.id') },
};
fs.writeFileSync(path.join(buildDir, 'sea-config.json'), JSON.stringify(config, null, 2));
execFileSync(process.execPath, ['--experimental-sea-config', path.join(buildDir, 'sea-config.json')], { stdio: 'inherit' });

// 4. Inject into a copy of this Node binary, under a hidden name; renamed once complete.
fs.rmSync(partial, { force: true });
fs.copyFileSync(process.execPath, partial);
fs.chmodSync(partial, 0o755);
const postject = require.resolve('postject/dist/cli.js', { paths: [toolDir] });
execFileSync(
  process.execPath,
  [postject, partial, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
  { stdio: 'inherit' },
);
fs.renameSync(partial, output);
const size = fs.statSync(output).size;
console.log(`${path.relative(process.cwd(), output)}: ${(size / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(0)} s (sharp asset: ${[...packages.keys()].join(', ')}; ${fileCount} files, ${(pack.length / 1e6).toFixed(1)} MB)`);
}).catch((err) => {
  console.error(err);
  process.exit(1);
});
