import { expect, it } from 'vitest';

import { cuda } from './cuda.js';
import { DisposedError, TensorArgumentError } from './errors.js';
import { Event } from './event.js';
import { addMod, modulusTable } from './modarith.js';
import { native } from './native.js';
import { randomLimbs } from './reference.test-helpers.js';
import { Stream, withStream } from './stream.js';
import { Tensor } from './tensor.js';
import { describeCuda } from './testing.js';

describeCuda('streams and events', () => {
  it('current stream: default until withStream, restored after return, throw and Promise', () => {
    const def = Stream.current();
    expect(def.isDefault).toBe(true);
    expect(def).toBe(Stream.default('cuda:0'));
    const s = new Stream('cuda:0');
    expect(withStream(s, () => Stream.current())).toBe(s);
    expect(Stream.current()).toBe(def);
    expect(() =>
      withStream(s, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(Stream.current()).toBe(def);
    expect(() => withStream(s, async () => 1)).toThrow(TypeError);
    expect(Stream.current()).toBe(def);
    expect(() => withStream(s, null as never)).toThrow(new TypeError('withStream: expected a function, got null'));
    const inner = new Stream();
    withStream(s, () => {
      withStream(inner, () => expect(Stream.current()).toBe(inner));
      expect(Stream.current()).toBe(s);
    });
    expect(() => withStream(s, () => s.dispose())).toThrow(/current stream/);
    s.dispose();
    s.dispose();
    inner.dispose();
    expect(s.isDisposed).toBe(true);
    expect(() => s.synchronize()).toThrow(DisposedError);
    expect(() => withStream(s, () => 1)).toThrow(DisposedError);
    expect(() => Stream.current('cpu')).toThrow(TensorArgumentError);
  });

  it('clamps priorities into the device range', () => {
    const [least, greatest] = native().streamPriorityRange(0);
    const high = new Stream('cuda', { priority: -1000 });
    const low = new Stream('cuda', { priority: 1000 });
    expect([high.priority, low.priority]).toEqual([greatest, least]);
    // Beyond 32 bits too: clamped, not wrapped around.
    const higher = new Stream('cuda', { priority: -(2 ** 40) });
    const lower = new Stream('cuda', { priority: 2 ** 40 });
    expect([higher.priority, lower.priority]).toEqual([greatest, least]);
    higher.dispose();
    lower.dispose();
    expect(() => new Stream('cuda', { priority: 0.5 })).toThrow(/priority must be an integer/);
    expect(() => new Stream('cuda', { prio: 1 } as never)).toThrow(new TensorArgumentError('new Stream(): unknown option "prio"; expected priority'));
    expect(() => new Event({ timing: false } as never)).toThrow(new TensorArgumentError('new Event(): unknown option "timing"; expected enableTiming, blocking'));
    high.dispose();
    low.dispose();
  });

  it('orders a copy on one stream after kernels on another through an event', () => {
    const q = (1n << 60n) - 93n;
    const n = 1 << 20;
    const data = randomLimbs([q], 1, n, 42n);
    const moduli = modulusTable([q], { device: 'cuda' });
    const x = Tensor.fromArray(data, { shape: [1, n], device: 'cuda' });
    const producer = new Stream();
    const consumer = new Stream();
    producer.waitStream(Stream.default());
    x.recordStream(producer);
    moduli.recordStream(producer);
    const y = withStream(producer, () => {
      const acc = x.clone();
      for (let i = 0; i < 50; i++) addMod(acc, x, moduli, { out: acc });
      return acc;
    });
    const done = new Event().record(producer);
    consumer.waitEvent(done);
    const z = Tensor.empty([1, n], { dtype: 'uint64', device: 'cuda' });
    z.recordStream(consumer);
    y.recordStream(consumer);
    z.copy_(y, { stream: consumer });
    const copied = new Event().record(consumer);
    copied.synchronize();
    expect(copied.query()).toBe(true);
    const expected = data.map((v) => (v * 51n) % q);
    expect(z.toArray()).toEqual(expected);
    for (const t of [moduli, x, y, z]) t.dispose();
    for (const e of [done, copied]) e.dispose();
    producer.dispose();
    consumer.dispose();
  });

  it('recycles disposed events without timing: a waiter keeps the record it saw, a new event starts unrecorded', () => {
    const q = (1n << 60n) - 93n;
    const n = 1 << 20;
    const moduli = modulusTable([q], { device: 'cuda' });
    const x = Tensor.fromArray(new BigUint64Array(n).fill(1n), { shape: [1, n], device: 'cuda' });
    const producer = new Stream();
    const consumer = new Stream();
    const idle = new Stream();
    const out = Tensor.empty([1, n], { dtype: 'uint64', device: 'cuda' });
    withStream(producer, () => {
      for (let i = 0; i < 100; i++) addMod(x, x, moduli, { out: x });
    });
    const first = new Event({ enableTiming: false }).record(producer);
    consumer.waitEvent(first);
    first.dispose();
    // Likely the same CUDA event, recycled: re-recording it must not release the wait above.
    const second = new Event({ enableTiming: false });
    expect(second.query()).toBe(true);
    second.record(idle);
    out.copy_(x, { stream: consumer });
    consumer.synchronize();
    const expected = 1n << 100n;
    expect((out.toArray() as BigUint64Array).every((v) => v === expected % q)).toBe(true);
    second.synchronize();
    second.dispose();
    for (const t of [moduli, x, out]) t.dispose();
    for (const s of [producer, consumer, idle]) s.dispose();
  });

  it('times work with events and reports completion', () => {
    const start = new Event();
    const end = new Event();
    const unrecorded = new Event();
    expect(unrecorded.query()).toBe(true);
    expect(() => start.elapsedMs(end)).toThrow(/both recorded/);
    start.record();
    const t = Tensor.empty([1 << 22], { dtype: 'uint8', device: 'cuda' });
    const u = t.clone();
    end.record();
    end.synchronize();
    expect(start.device).toBe('cuda:0');
    expect(start.elapsedMs(end)).toBeGreaterThanOrEqual(0);
    const untimed = new Event({ enableTiming: false }).record();
    untimed.synchronize();
    expect(() => start.elapsedMs(untimed)).toThrow(/enableTiming/);
    expect(Stream.current().query()).toBe(true);
    Stream.current().synchronize();
    cuda.synchronize('cuda:0');
    for (const e of [start, end, unrecorded, untimed]) e.dispose();
    expect(() => start.query()).toThrow(DisposedError);
    t.dispose();
    u.dispose();
  });

  it('reports the device name', () => {
    expect(cuda.deviceName()).toMatch(/\S/);
  });
});
