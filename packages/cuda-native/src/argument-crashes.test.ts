import { describe, expect, it } from 'vitest';

import { SWEEP_SKIP, sweepExamples } from './argument-crashes.test-helpers.js';
import { findArgumentCrashes, isEngineTypeError } from './argument-crashes.js';
import * as cudaNative from './index.js';

describe('the public surface with hostile arguments', () => {
  it('answers every call with its own error, never with a failure inside its checks', async () => {
    const crashes = await findArgumentCrashes(cudaNative, {
      skip: SWEEP_SKIP,
      // Streams, events and device tensors need CUDA: cuda-argument-crashes.test.ts sweeps those.
      instances: {
        tensor: () => cudaNative.Tensor.fromArray(new Float32Array([1, 2, 3, 4]), { shape: [2, 2] }),
        view: () => cudaNative.Tensor.fromArray(new BigUint64Array(12), { shape: [3, 4] }).narrow(1, 1, 2),
        device: () => cudaNative.Device.from('cpu'),
      },
      examples: sweepExamples('cpu'),
    });
    expect(crashes).toEqual([]);
  });
});

describe('findArgumentCrashes', () => {
  it('reports a message built from the value, a property read of it and a bigint in JSON', async () => {
    const crashes = await findArgumentCrashes({
      label: (x: unknown) => `got ${x as string}`,
      read: (x: unknown) => (x as { a: { b: number } }).a.b,
      json: (x: unknown) => JSON.stringify(x),
    });
    const first = (name: string) => crashes.find((c) => c.call.startsWith(`${name}(`));
    expect(first('label')).toEqual({ call: 'label(Object.create(null))', message: 'Cannot convert object to primitive value' });
    expect(crashes.filter((c) => c.call.startsWith('label(')).map((c) => c.message)).toContain('Cannot convert a Symbol value to a string');
    expect(first('read')?.message).toMatch(/^Cannot read properties of undefined/);
    expect(first('json')?.message).toMatch(/serialize a BigInt/);
  });

  it('passes functions that refuse with their own errors, and skips what it is told to', async () => {
    const check = (x: unknown) => {
      if (typeof x !== 'number') throw new TypeError('check: expected a number');
      return x;
    };
    expect(await findArgumentCrashes({ check, skipped: (x: unknown) => `${x as string}` }, { skip: { skipped: 'on purpose' } })).toEqual([]);
    // An export named like an Object.prototype member is swept, not skipped by inheritance.
    expect((await findArgumentCrashes({ toString: (x: unknown) => `${x as string}` })).length).toBeGreaterThan(0);
  });

  it('sweeps the methods of given instances, each on a fresh one, leaving out internal names', async () => {
    class Counter {
      closed = false;
      close(): void {
        this.closed = true;
      }
      add(x: unknown): string {
        if (this.closed) throw new Error('closed');
        return `${x as string}`;
      }
      _internal(x: unknown): string {
        return `${x as string}`;
      }
    }
    const crashes = await findArgumentCrashes({}, { instances: { counter: () => new Counter() } });
    expect(new Set(crashes.map((c) => c.call.slice(0, c.call.indexOf('('))))).toEqual(new Set(['counter#add']));
    expect(await findArgumentCrashes({}, { instances: { counter: () => new Counter() }, skip: { 'counter#add': 'test' } })).toEqual([]);
  });

  it('awaits returned promises: reports rejections with such errors and promises that never settle', async () => {
    const crashes = await findArgumentCrashes(
      {
        rejects: async (x: unknown) => `${x as string}`,
        hangs: (x: unknown) => (x === undefined ? 0 : new Promise(() => {})),
      },
      { settleMs: 50 },
    );
    expect(crashes.find((c) => c.call.startsWith('rejects('))?.message).toMatch(/^Cannot convert/);
    expect(crashes.find((c) => c.call.startsWith('hangs('))?.message).toBe('the returned promise did not settle within 50 ms');
  });

  it('spoils good example calls one argument and one option at a time, after checking the good call succeeds', async () => {
    const seen: string[] = [];
    const crashes = await findArgumentCrashes(
      {},
      {
        examples: {
          // Checks its first argument, then builds a message from an option without checking it.
          late: {
            args: () => [1, { name: 'x', count: 2 }],
            run: (n: unknown, options: unknown) => {
              if (typeof n !== 'number') throw new TypeError('late: n must be a number');
              const { name } = options as { name: unknown };
              seen.push(typeof name);
              return `name ${name as string}`;
            },
          },
          broken: { args: () => [1], run: () => JSON.parse('{') as unknown },
        },
      },
    );
    expect(crashes.find((c) => c.call.startsWith('late('))).toEqual({ call: 'late(·, { …, name: Object.create(null) })', message: 'Cannot convert object to primitive value' });
    expect(crashes.some((c) => c.call.startsWith('late(Object.create(null)'))).toBe(false);
    expect(seen).toContain('symbol');
    expect(crashes.find((c) => c.call.startsWith('broken('))).toEqual({ call: 'broken(good arguments)', message: expect.stringMatching(/^the example itself failed: /) as unknown });
  });

  it('tells JavaScript and Node complaints from library errors', () => {
    expect(isEngineTypeError(new TypeError('Cannot convert object to primitive value'))).toBe(true);
    expect(isEngineTypeError(Object.assign(new TypeError('The "path" argument must be of type string'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe(true);
    expect(isEngineTypeError(new TypeError('withStream: expected a Stream, got 3'))).toBe(false);
    expect(isEngineTypeError(new RangeError('Cannot convert'))).toBe(false);
  });
});
