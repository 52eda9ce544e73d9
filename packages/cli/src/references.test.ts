import { describe, expect, it } from 'vitest';

import { CKKS_OPS, ckksReference, NODE_SEAL_CPU_US, PHANTOM_H200_US } from './references.js';

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
});
