// Tests of packages.mjs's reading of `npm pack --json`. Run with
// `node --test tools/release/packages.test.mjs`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packRecord } from './packages.mjs';

const record = { id: '@fhelium/x@1.0.0', name: '@fhelium/x', version: '1.0.0', size: 10, unpackedSize: 20, filename: 'fhelium-x-1.0.0.tgz', files: [] };

test('reads the array that npm 11 and earlier print', () => {
  assert.deepEqual(packRecord(JSON.stringify([record], null, 2), '@fhelium/x'), record);
});

test("reads npm 12's object keyed by package name", () => {
  assert.deepEqual(packRecord(JSON.stringify({ '@fhelium/x': record }, null, 2), '@fhelium/x'), record);
});

test('skips what lifecycle scripts printed first, brackets included', () => {
  const prefix = '\n> @fhelium/x@1.0.0 prepack\n> echo [build] done {ok}\n\n[build] done {ok}\n';
  for (const json of [[record], { '@fhelium/x': record }]) {
    assert.deepEqual(packRecord(prefix + JSON.stringify(json, null, 2), '@fhelium/x'), record);
  }
});

test('says what is missing when there is no JSON or no record', () => {
  assert.throws(() => packRecord('npm notice nothing\n', '@fhelium/x'), /printed no JSON for @fhelium\/x/);
  assert.throws(() => packRecord(JSON.stringify({ '@fhelium/y': record }), '@fhelium/x'), /no record with a filename for @fhelium\/x/);
  assert.throws(() => packRecord('[]', '@fhelium/x'), /no record with a filename for @fhelium\/x/);
});
