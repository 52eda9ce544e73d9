// Tests of the tarball checks of pack-check.mjs on tarballs built here with tar. Run with
// `node --test tools/release/pack-check.test.mjs`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { checkTarball } from './pack-check.mjs';

const work = mkdtempSync(path.join(os.tmpdir(), 'pack-check-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A tarball laid out like npm's (`package/…`) holding `files` (path → content). */
function tarball(name, files) {
  const root = path.join(work, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'package', file)), { recursive: true });
    writeFileSync(path.join(root, 'package', file), content);
  }
  const out = path.join(work, `${name}.tgz`);
  execFileSync('tar', ['-czf', out, '-C', root, 'package']);
  return { dir: name, root: path.join(work, 'no-such-source', name), tarball: out, files: Object.keys(files).sort() };
}

const manifest = (extra = {}) =>
  JSON.stringify({ name: '@fhelium/x', version: '1.0.0', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } }, ...extra });
const good = { 'package.json': manifest(), 'README.md': '# x', LICENSE: 'MIT', 'dist/index.js': '', 'dist/index.d.ts': '' };

test('a complete tarball passes', () => {
  assert.deepEqual(checkTarball(tarball('good', good), new Map()).problems, []);
});

test('missing pieces and forbidden files are each reported', () => {
  const { problems } = checkTarball(
    tarball('bad', {
      'package.json': manifest({ bin: { x: './dist/bin.js' }, dependencies: { '@fhelium/y': '0.1.0' } }),
      'dist/index.js': '',
      'dist/bin.js': 'console.log(1)',
      'dist/index.test.js': '',
      'coverage/index.html': '',
      'test-results/vitest.json': '',
      'dist/tsconfig.lib.tsbuildinfo': '',
      'build/Release/x.node': '',
    }),
    new Map([['@fhelium/y', '0.2.0']]),
  );
  const expected = [
    /no dist\/\*\*\/\*\.d\.ts/,
    /exports\["\."\]\["types"\]: \.\/dist\/index\.d\.ts is not in the tarball/,
    /bin "x": \.\/dist\/bin\.js does not start with a #! line/,
    /no README/,
    /no LICENSE/,
    /dependencies: @fhelium\/y@0\.1\.0 but the repository has 0\.2\.0/,
    /holds a test file: dist\/index\.test\.js/,
    /holds a coverage report: coverage\/index\.html/,
    /holds test results: test-results\/vitest\.json/,
    /holds a TypeScript build-info file: dist\/tsconfig\.lib\.tsbuildinfo/,
    /holds a build\/ folder: build\/Release\/x\.node/,
  ];
  for (const re of expected) assert.ok(problems.some((p) => re.test(p)), `no problem matches ${re}:\n${problems.join('\n')}`);
  assert.equal(problems.length, expected.length, problems.join('\n'));
});

test('a native package needs its sources and a way to build the addon on install', () => {
  const native = { ...good, 'package.json': manifest({ binary: { napi_versions: [8] } }) };
  const without = checkTarball(tarball('native-bare', native), new Map()).problems;
  assert.ok(without.some((p) => /without CMakeLists\.txt/.test(p)));
  assert.ok(without.some((p) => /without csrc\//.test(p)));
  assert.ok(without.some((p) => /no install script and no prebuilds/.test(p)));
  const complete = checkTarball(
    tarball('native-ok', {
      ...native,
      'package.json': manifest({ binary: { napi_versions: [8] }, scripts: { install: 'node tools/build-native.mjs' } }),
      'CMakeLists.txt': '',
      'csrc/a.cpp': '',
      'tools/build-native.mjs': '',
    }),
    new Map(),
  );
  assert.deepEqual(complete.problems, []);
  assert.ok(complete.notes.some((n) => /builds the addon on install/.test(n)));
});
