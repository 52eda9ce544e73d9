import { describe, expect, it } from 'vitest';

import { CKKS_OPS, ckksReference, NODE_SEAL_CPU_US, PHANTOM_H200_US, phantomMultiplyRescaleUs } from './references.js';

describe('reference figures (DESIGN.md)', () => {
  it('hold every op for the four CUDA presets and six ops for the two CPU presets', () => {
    expect(Object.keys(PHANTOM_H200_US)).toEqual(['n14-l7', 'n15-l15', 'n16-l23', 'n16-l35']);
    for (const preset of Object.keys(PHANTOM_H200_US)) for (const op of CKKS_OPS) expect(ckksReference('cuda', preset, op)?.us).toBeGreaterThan(0);
    expect(Object.keys(NODE_SEAL_CPU_US)).toEqual(['n14-l7', 'n15-l15']);
    expect(ckksReference('cpu', 'n15-l15', 'multiplyRelinearize')?.us).toBe(312_829);
    expect(ckksReference('cuda', 'n16-l35', 'rotate')?.us).toBe(1388);
  });

  it('has no figure where DESIGN.md has none', () => {
    expect(ckksReference('cpu', 'n14-l7', 'decrypt')).toBeNull();
    expect(ckksReference('cpu', 'n16-l23', 'add')).toBeNull();
    expect(ckksReference('cuda', 'test-n10-l3', 'add')).toBeNull();
    expect(ckksReference('cuda', 'n14-l7', 'toString')).toBeNull();
  });

  it('refuses arguments of the wrong type, naming the argument and what was given', () => {
    expect(() => ckksReference('gpu' as 'cuda', 'n14-l7', 'add')).toThrow(new TypeError(`ckksReference: deviceKind must be 'cpu' or 'cuda', got "gpu" (string)`));
    expect(() => ckksReference('cuda', Object.create(null) as string, 'add')).toThrow(new TypeError('ckksReference: preset must be a string, got a plain object'));
    expect(() => ckksReference('cuda', 'n14-l7', Symbol('add') as unknown as string)).toThrow(new TypeError('ckksReference: op must be a string, got a symbol'));
    expect(() => phantomMultiplyRescaleUs(14 as unknown as string)).toThrow(new TypeError('phantomMultiplyRescaleUs: preset must be a string, got 14 (number)'));
    expect(phantomMultiplyRescaleUs('n14-l7')).toBe(238 + 64);
    expect(phantomMultiplyRescaleUs('test-n10-l3')).toBeNull();
  });
});
