import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { nttPrimes, randomPoly } from './ckks-kernels.test-helpers.js';
import { cpuThreads } from './diagnostics.js';
import { TensorArgumentError } from './errors.js';
import { addMod, mulMod, modulusTable } from './modarith.js';
import { native } from './native.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { Tensor } from './tensor.js';

const builtAddon = path.resolve(import.meta.dirname, '..', 'build', 'Release', 'fhelium_native.node');
const savedEnv = process.env.FHELIUM_CPU_THREADS;

afterEach(() => {
  if (savedEnv === undefined) delete process.env.FHELIUM_CPU_THREADS;
  else process.env.FHELIUM_CPU_THREADS = savedEnv;
  native().setCpuThreads(0);
});

describe('CPU kernel threads', () => {
  it('default to the CPUs this process may use, or FHELIUM_CPU_THREADS', () => {
    const fromEnv = process.env.FHELIUM_CPU_THREADS;
    expect(cpuThreads()).toBe(fromEnv ? Number(fromEnv) : os.availableParallelism());
  });

  it('can be set and restored (internal setter for tests and tuning)', () => {
    const before = cpuThreads();
    native().setCpuThreads(3);
    expect(cpuThreads()).toBe(3);
    native().setCpuThreads(0);
    expect(cpuThreads()).toBe(before);
    expect(() => native().setCpuThreads(-1)).toThrow(/setCpuThreads: expected a thread count in \[0, 1024\]/);
    expect(() => native().setCpuThreads(1025)).toThrow(/got 1025/);
  });

  it('give the same bits with 1 thread and with several (NTT and modular product on [3, 5, 2^13])', () => {
    const logN = 13;
    const n = 1 << logN;
    const primes = [...nttPrimes(60, logN, 1), ...nttPrimes(40, logN, 4)];
    using tables = NttTables.build(logN, primes);
    using moduli = modulusTable(primes);
    using a = Tensor.fromArray(randomPoly(primes, 3, n, 7n), { shape: [3, primes.length, n] });
    // The bytes of each result, compared as buffers (toEqual on 10^5 bigints is slow).
    const run = (threads: number): Buffer[] => {
      native().setCpuThreads(threads);
      using f = nttForward(a, tables);
      using sq = mulMod(f, f, moduli);
      using back = nttInverse(sq, tables);
      return [f, sq, back].map((t) => Buffer.from((t.toArray() as BigUint64Array).buffer));
    };
    const serial = run(1);
    for (const threads of [2, 3, 5]) {
      const results = run(threads);
      results.forEach((bytes, i) => expect(bytes.equals(serial[i]!), `${threads} threads, result ${i}`).toBe(true));
    }
  });
});

describe('FHELIUM_CPU_THREADS', () => {
  it('is read at the first use in a process', () => {
    const script = `const m = require(${JSON.stringify(builtAddon)}); process.stdout.write(String(m.cpuThreads()));`;
    for (const value of ['1', '3']) {
      const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, FHELIUM_CPU_THREADS: value } });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(value);
    }
  });

  it('is read again when the count is reset to the default', () => {
    process.env.FHELIUM_CPU_THREADS = '1';
    native().setCpuThreads(0);
    expect(cpuThreads()).toBe(1);
    process.env.FHELIUM_CPU_THREADS = '7';
    native().setCpuThreads(0);
    expect(cpuThreads()).toBe(7);
  });

  it('that is not an integer in [1, 1024] makes cpuThreads() and every CPU kernel throw a TensorArgumentError', () => {
    using moduli = modulusTable([97n, 193n, 257n, 353n]);
    using t = Tensor.empty([4, 16384], { dtype: 'uint64' });
    for (const bad of ['0', 'lots', '2x', '1025']) {
      process.env.FHELIUM_CPU_THREADS = bad;
      native().setCpuThreads(0);
      const message = `FHELIUM_CPU_THREADS: expected an integer in [1, 1024] (the CPU kernels' thread count), got '${bad}'`;
      expect(() => cpuThreads()).toThrow(new TensorArgumentError(message));
      expect(() => addMod(t, t, moduli, { out: t })).toThrow(new TensorArgumentError(message));
    }
  });
});
