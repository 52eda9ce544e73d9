// Tests of the API generator on a fixture package (tools/docs/fixtures/demo-package): what it reads
// from TSDoc, what --check reports, and the Markdown it writes. Run with `node --test`.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readApi, undocumented } from './api-model.mjs';
import { renderApi } from './api-markdown.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const fixtureRoot = path.join(here, 'fixtures', 'demo-package');
const fixture = { dir: 'demo', name: '@fixture/demo', description: 'Fixture', root: fixtureRoot, entry: path.join(fixtureRoot, 'src', 'index.ts') };
const api = readApi(repoRoot, [fixture]);
const symbols = new Map(api.packages[0].symbols.map((s) => [s.name, s]));

test('reads every export through the re-export, with its kind', () => {
  assert.deepEqual(
    [...symbols.values()].map((s) => [s.name, s.kind]),
    [
      ['Counter', 'class'],
      ['CounterError', 'error'],
      ['CounterOptions', 'interface'],
      ['MAX_STEP', 'constant'],
      ['undocumentedHelper', 'function'],
    ],
  );
  assert.match(api.packages[0].moduleDoc, /A fixture package/);
});

test('reads constructor, factory, property and method docs; hides @internal members', () => {
  const counter = symbols.get('Counter');
  assert.deepEqual(counter.members.map((m) => [m.kind, m.name, m.static]), [
    ['property', 'count', false],
    ['constructor', 'constructor', false],
    ['method', 'zero', true],
    ['method', 'advance', false],
  ]);
  const advance = counter.members.find((m) => m.name === 'advance');
  assert.equal(advance.signatures[0], 'advance(steps: number): Counter');
  assert.deepEqual(advance.doc.params, [{ name: 'steps', text: 'How many to add.' }]);
  assert.equal(advance.doc.returns, 'A new counter; this one is unchanged.');
  assert.match(advance.doc.throws[0], /^\{@link CounterError\} if `steps` is not an integer\.$/);
  assert.match(advance.doc.examples[0], /Counter\.zero\(\)\.advance\(2\)\.count/);
  const ctor = counter.members.find((m) => m.kind === 'constructor');
  assert.equal(ctor.signatures[0], 'constructor(start: number)');
  assert.match(ctor.doc.throws[0], /^RangeError if `start` is negative\.$/);
});

test('--check lists exactly the undocumented export, with file:line', () => {
  const gaps = undocumented(api);
  assert.deepEqual(
    gaps.map((g) => `${g.file}:${g.line} ${g.symbol}`),
    ['tools/docs/fixtures/demo-package/src/Counter.ts:51 undocumentedHelper'],
  );
});

test('renders a class page with sections, anchors, links and examples', () => {
  const { pages, sidebar } = renderApi(api);
  const byPath = new Map(pages.map((p) => [p.path, p.content]));
  assert.deepEqual([...byPath.keys()].sort(), ['api/demo/Counter.md', 'api/demo/constants.md', 'api/demo/errors.md', 'api/demo/functions.md', 'api/demo/index.md', 'api/demo/types.md', 'api/index.md']);
  const page = byPath.get('api/demo/Counter.md');
  for (const expected of [
    '# Counter',
    '## Constructor',
    '### new Counter() {#constructor-member}',
    '## Static methods',
    '### zero {#zero}',
    '## Properties',
    '### count {#count}',
    '## Methods',
    '### advance {#advance}',
    '#### Parameters',
    '- `steps`: How many to add.',
    '#### Returns',
    '- [**CounterError**](/api/demo/errors#CounterError) if `steps` is not an integer.',
    '- **RangeError** if `start` is negative.',
    '#### Example',
    'Counter.zero().advance(2).count; // 2',
  ]) {
    assert.ok(page.includes(expected), `Counter.md lacks ${JSON.stringify(expected)}`);
  }
  assert.ok(!page.includes('_debug'), 'an @internal member is documented');
  assert.ok(byPath.get('api/demo/errors.md').includes("Stable `name`: `'CounterError'`"));
  assert.ok(byPath.get('api/demo/constants.md').includes('[`Counter.advance`](/api/demo/Counter#advance)'));
  assert.ok(byPath.get('api/demo/functions.md').includes('::: danger Undocumented'));
  assert.deepEqual(sidebar[1].items.map((i) => i.text), ['Overview', 'Counter', 'Functions', 'Interfaces and types', 'Constants', 'Errors']);
});
