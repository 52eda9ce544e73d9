import * as buffer from '@fhelium/buffer';
import * as ckks from '@fhelium/ckks';
import * as ckksValues from '@fhelium/ckks-values';
import * as graph from '@fhelium/graph';
import * as cudaNative from '@fhelium/cuda-native';
import * as signature from '@fhelium/signature';
import { describe, expect, it } from 'vitest';

import * as cli from './index.js';

// @fhelium/cuda-native sits below @fhelium/signature (it imports no package): its errors extend its
// own FheliumNativeError, which carries the mark instanceof FHEliumError tests for.
const packages = { signature, 'cuda-native': cudaNative, buffer, 'ckks-values': ckksValues, ckks, graph, cli };

describe('the error classes of every package', () => {
  it('are all FHEliumErrors, so one instanceof tells the library errors from any other', () => {
    const errorClasses = Object.entries(packages).flatMap(([name, surface]) =>
      Object.entries(surface)
        .filter(([, value]) => typeof value === 'function' && (value === Error || (value as { prototype?: unknown }).prototype instanceof Error))
        .map(([exported, value]) => [`${name}.${exported}`, value as new (...args: never[]) => Error] as const),
    );
    expect(errorClasses.length).toBeGreaterThan(20);
    const outside = errorClasses.filter(([, cls]) => cls !== signature.FHEliumError && !(cls.prototype instanceof signature.FHEliumError)).map(([name]) => name);
    expect(outside).toEqual([]);
  });

  it('catches an error the addon throws under an engine call with instanceof FHEliumError', () => {
    let thrown: unknown;
    try {
      cudaNative.Tensor.empty([-1]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(cudaNative.TensorArgumentError);
    expect(thrown instanceof signature.FHEliumError).toBe(true);
    expect(thrown instanceof signature.ExecutionError).toBe(false);
  });
});

