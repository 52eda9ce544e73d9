import { describe, expect, it } from 'vitest';

import { automorphismCoeff, automorphismNtt } from './automorphism.js';
import {
  BasisConversionTables,
  basisConvert,
  modDownConstants,
  modDownFinish,
  modDownNtt,
  modUp,
  modUpDigits,
  modUpDigitsNtt,
} from './basis-conversion.js';
import { copyTensors, TensorCopyBatch } from './copy-tensors.js';
import { TensorArgumentError } from './errors.js';
import { keyswitchInnerProduct } from './keyswitch.js';
import { addMod, modulusTable, mulMod, mulModShoup, negMod, polyEvalMod, subMod, tensorProductMod } from './modarith.js';
import { modDownRescaleNtt } from './mod-down-rescale.js';
import { mulAccumulateMod } from './mul-accumulate.js';
import { burstFigures } from './bench.js';
import { NttTables, nttForward, nttInverse } from './ntt.js';
import { checkOptionKeys } from './option-keys.js';
import { RescaleTables, rescaleFinish, rescaleNtt, rescalePrepare } from './rescale.js';
import { Tensor } from './tensor.js';
import { tensorProductInverseNtt } from './tensor-product-ntt.js';

describe('checkOptionKeys', () => {
  const known = { out: true, stream: true } as const;

  it('passes no options, an empty object and known keys', () => {
    expect(() => checkOptionKeys(undefined, known, 'f')).not.toThrow();
    expect(() => checkOptionKeys({}, known, 'f')).not.toThrow();
    expect(() => checkOptionKeys({ out: 1, stream: undefined }, known, 'f')).not.toThrow();
  });

  it('refuses a key the function does not take, naming the function, the key and the keys it takes', () => {
    expect(() => checkOptionKeys({ out: 1, non_blocking: true }, known, 'Tensor.to')).toThrow(
      new TensorArgumentError('Tensor.to: unknown option "non_blocking"; expected out, stream'),
    );
  });

  it('refuses keys that only Object.prototype has', () => {
    expect(() => checkOptionKeys({ constructor: 1 }, known, 'f')).toThrow(/^f: unknown option "constructor"/);
    expect(() => checkOptionKeys(JSON.parse('{"__proto__": 1}'), known, 'f')).toThrow(/^f: unknown option "__proto__"/);
  });

  it('refuses options that are not an object', () => {
    expect(() => checkOptionKeys(null, known, 'f')).toThrow(new TensorArgumentError('f: options must be an object, got null'));
    expect(() => checkOptionKeys(true, known, 'f')).toThrow(new TensorArgumentError('f: options must be an object, got true'));
    expect(() => checkOptionKeys('out', known, 'f')).toThrow(new TensorArgumentError('f: options must be an object, got "out"'));
  });
});

// Every function of the package that takes options refuses an unknown key before it reads its
// operands (the operands here are placeholders that would fail their own checks), so the error is
// about the option and nothing has been allocated or launched.
describe('unknown options across the package', () => {
  const x = undefined as never;
  const bad = { bogus: 1 } as never;
  const cases: [string, () => unknown][] = [
    ['Tensor.empty', () => Tensor.empty([1], { dtype: 'uint64', devise: 'cuda' } as never)],
    ['Tensor.fromArray', () => Tensor.fromArray(new Float32Array(1), bad)],
    ['Tensor.copy_', () => Tensor.empty([1]).copy_(x, { non_blocking: true } as never)],
    ['Tensor.to', () => Tensor.empty([1]).to('cpu', { non_blocking: true } as never)],
    ['copyTensors', () => copyTensors(x, x, bad)],
    ['TensorCopyBatch.copyFrom', () => new TensorCopyBatch([]).copyFrom([], bad)],
    ['addMod', () => addMod(x, x, x, bad)],
    ['subMod', () => subMod(x, x, x, bad)],
    ['mulMod', () => mulMod(x, x, x, { zeroExtend: true } as never)],
    ['negMod', () => negMod(x, x, bad)],
    ['polyEvalMod', () => polyEvalMod(x, x, x, bad)],
    ['tensorProductMod', () => tensorProductMod(x, x, x, bad)],
    ['mulModShoup', () => mulModShoup(x, x, x, x, bad)],
    ['modulusTable', () => modulusTable([97], { devise: 'cuda' } as never)],
    ['NttTables.build', () => NttTables.build(10, [], bad)],
    ['nttForward', () => nttForward(x, x, bad)],
    ['nttInverse', () => nttInverse(x, x, { skipDigitLimbs: undefined } as never)],
    ['automorphismNtt', () => automorphismNtt(x, 3, bad)],
    ['automorphismCoeff', () => automorphismCoeff(x, 3, x, bad)],
    ['BasisConversionTables.build', () => BasisConversionTables.build([], [], bad)],
    ['BasisConversionTables.modUp', () => BasisConversionTables.modUp([], [], 0, 1, bad)],
    ['basisConvert', () => basisConvert(x, x, bad)],
    ['modUp', () => modUp(x, x, 0, bad)],
    ['modUpDigits', () => modUpDigits(x, [], 1, bad)],
    ['modUpDigitsNtt', () => modUpDigitsNtt(x, x, [], 1, x, bad)],
    ['modDownConstants', () => modDownConstants([], [], bad)],
    ['modDownFinish', () => modDownFinish(x, x, x, bad)],
    ['modDownNtt', () => modDownNtt(x, x, x, x, bad)],
    ['modDownRescaleNtt', () => modDownRescaleNtt(x, x, x, x, x, bad)],
    ['RescaleTables.build', () => RescaleTables.build([], bad)],
    ['rescalePrepare', () => rescalePrepare(x, x, bad)],
    ['rescaleFinish', () => rescaleFinish(x, x, x, bad)],
    ['rescaleNtt', () => rescaleNtt(x, x, x, bad)],
    ['tensorProductInverseNtt', () => tensorProductInverseNtt(x, x, x, { out: x } as never)],
    ['keyswitchInnerProduct', () => keyswitchInnerProduct(x, x, x, bad)],
    ['mulAccumulateMod', () => mulAccumulateMod([], [], x, bad)],
    ['burstFigures', () => burstFigures(() => undefined, { settle: () => undefined, saturatedCalls: 1, gpu: null, scalling: {} } as never)],
  ];

  it.each(cases)('%s', (where, call) => {
    let caught: unknown;
    try {
      call();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TensorArgumentError);
    expect((caught as Error).message).toMatch(new RegExp(`^${where.replace('.', '\\.')}: unknown option "\\w+"; expected \\w+`));
  });
});
