// Tests of the documentation examples check (examples.mjs) on markdown written here: which blocks
// it takes, and that a wrong claim, a type error or a failing run each fail it, naming the markdown
// line. The programs import the built @fhelium/ckks-values (run the packages' build first, as the
// docs test target does). Run with `node --test`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { checkExamples, parseExamples, withClaimChecks } from './examples.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'fhelium-examples-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `lines` as a markdown file and returns its path. */
function markdown(name, lines) {
  const file = path.join(dir, name);
  writeFileSync(file, lines.join('\n'));
  return file;
}

const PARAMETERS = "import { CkksParameters } from '@fhelium/ckks-values';";

test('takes only marked ts blocks, joins blocks of one name in order, and maps lines back', () => {
  const text = [
    '# Guide', // 1
    '```ts', // 2: not marked
    'ignored();',
    '```',
    '<!-- example: guide run -->', // 5
    '', // 6
    '```ts', // 7
    'const a = 1;', // 8
    '```',
    'Then:',
    '<!-- example: guide run -->', // 11
    '```ts', // 12
    'const b = a + 1;', // 13
    '```',
  ].join('\n');
  const [program, ...rest] = parseExamples(text, 'guide.md');
  assert.equal(rest.length, 0);
  assert.equal(program.name, 'guide');
  assert.equal(program.mode, 'run');
  assert.deepEqual(
    program.blocks.map((b) => [b.code, b.line]),
    [
      ['const a = 1;', 8],
      ['const b = a + 1;', 13],
    ],
  );
});

test('refuses a marker without a ts block, an unclosed block and a name marked with two modes', () => {
  assert.throws(() => parseExamples('<!-- example: x run -->\n```js\nx\n```', 'a.md'), /a\.md:1: example marker 'x' is not followed by a ```ts block/);
  assert.throws(() => parseExamples('<!-- example: x run -->\n```ts\nx', 'a.md'), /a\.md:2: the ```ts block of example 'x' is not closed/);
  assert.throws(
    () => parseExamples('<!-- example: x run -->\n```ts\na\n```\n<!-- example: x typecheck -->\n```ts\nb\n```', 'a.md'),
    /a\.md:5: example 'x' is marked 'typecheck' here and 'run' before/,
  );
});

test('turns console.log claims into checks; a claim that is not a list of numbers is an error', () => {
  const { text, claims } = withClaimChecks('console.log(v); // ≈ [1, 2.5, …]\nconsole.log(w);\n', [10, 11], 'a.md');
  assert.equal(claims, 1);
  assert.match(text, /__checkClaim\(v, \[1,2\.5\], true, ".*a\.md:10"\);/);
  assert.match(text, /\nconsole\.log\(w\);/);
  assert.throws(() => withClaimChecks('console.log(v); // ≈ [one]', [3], 'a.md'), /a\.md:3: the claim \[one\] is not a list of numbers/);
});

test('passes a program that compiles, runs and prints what it claims; a typecheck program is not run', () => {
  const file = markdown('good.md', [
    '<!-- example: good run -->',
    '```ts',
    PARAMETERS,
    "const p = CkksParameters.fromPreset('n14-l7');",
    'console.log([p.logN, p.maxLevel]); // ≈ [14, 7]',
    'console.log([p.dnum, 0]); // ≈ [8, …]',
    '```',
    '<!-- example: never-run typecheck -->',
    '```ts',
    "throw new Error('a typecheck example must not run');",
    '```',
  ]);
  const results = checkExamples([file]);
  assert.deepEqual(
    results.map((r) => [r.name, r.ok, r.detail.replace(/runs in [\d.]+ s/, 'runs')]),
    [
      ['good', true, 'compiles, runs, 2 claims hold'],
      ['never-run', true, 'compiles'],
    ],
  );
});

test('fails a wrong claim, a type error and a program that throws, naming the markdown line', () => {
  const file = markdown('bad.md', [
    '<!-- example: wrong-claim run -->', // 1
    '```ts', // 2
    PARAMETERS, // 3
    "console.log([CkksParameters.fromPreset('n14-l7').logN]); // ≈ [15]", // 4
    '```',
    '<!-- example: type-error typecheck -->', // 6
    '```ts', // 7
    PARAMETERS, // 8
    "const n: string = CkksParameters.fromPreset('n14-l7').logN;", // 9
    '```',
    '<!-- example: throws run -->', // 11
    '```ts', // 12
    PARAMETERS, // 13
    "CkksParameters.fromPreset('no-such-preset');", // 14
    '```',
  ]);
  const [wrong, typeError, throws] = checkExamples([file]);
  assert.equal(wrong.ok, false);
  assert.match(wrong.detail, /bad\.md:4: the example claims ≈ 15 at index 0, it printed 14/);
  assert.equal(typeError.ok, false);
  assert.match(typeError.detail, /does not compile:\n\s+.*bad\.md:9: TS2322: Type 'number' is not assignable to type 'string'/);
  assert.equal(throws.ok, false);
  assert.match(throws.detail, /failed when run: exit code 1\n\s+UnknownPresetError: .*unknown CKKS preset 'no-such-preset'/);
});

test('a run-cuda program is type-checked; without CUDA it is not run, or fails when CUDA is required', () => {
  const file = markdown('gpu.md', [
    '<!-- example: gpu run-cuda -->',
    '```ts',
    PARAMETERS,
    "throw new Error('only where CUDA is available');",
    '```',
    '<!-- example: gpu-type-error run-cuda -->',
    '```ts',
    'const n: string = 1;',
    '```',
  ]);
  const without = checkExamples([file], { cuda: { available: false, required: false } });
  assert.deepEqual(
    without.map((r) => [r.name, r.ok, r.skipped ?? false, r.detail.split('\n')[0]]),
    [
      ['gpu', true, true, 'compiles; not run: CUDA is not available here'],
      ['gpu-type-error', false, false, 'does not compile:'],
    ],
  );
  const [required] = checkExamples([file], { cuda: { available: false, required: true } });
  assert.equal(required.ok, false);
  assert.equal(required.detail, 'compiles, but CUDA is not available to run it (FHELIUM_REQUIRE_CUDA=1)');
  const [available] = checkExamples([file], { cuda: { available: true, required: true } });
  assert.equal(available.ok, false);
  assert.match(available.detail, /failed when run: exit code 1\n\s+Error: only where CUDA is available/);
});
