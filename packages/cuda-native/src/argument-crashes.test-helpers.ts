import type { ArgumentExample } from './argument-crashes.js';
import { nttPrimes } from './ckks-kernels.test-helpers.js';
import {
  addMod,
  automorphismCoeff,
  automorphismNtt,
  BasisConversionTables,
  basisConvert,
  copyTensors,
  modulusTable,
  mulAccumulateMod,
  mulMod,
  mulModShoup,
  nativeInfo,
  negMod,
  nttForward,
  nttInverse,
  NttTables,
  polyEvalMod,
  RescaleTables,
  rescaleNtt,
  SAMPLING_KEY_BYTES,
  sampleUniformMod,
  shoupPrecompute,
  Stream,
  subMod,
  Tensor,
  TensorCopyBatch,
  tensorProductMod,
} from './index.js';

const LOG_N = 10;
const N = 1 << LOG_N;

/**
 * What the sweeps of this package's surface leave out (argument-crashes.test.ts on the CPU,
 * cuda-argument-crashes.test.ts with CUDA): constructors that TypeScript refuses to call. The
 * tables come from their `build`, and KernelTables is their abstract base.
 */
export const SWEEP_SKIP: Readonly<Record<string, string>> = {
  'new KernelTables': 'abstract class, protected constructor',
  'new BasisConversionTables': 'private constructor',
  'new NttTables': 'private constructor',
  'new RescaleTables': 'private constructor',
};

/**
 * The examples whose kernels the fake-CUDA build lacks (csrc/hosttest/fake_kernels.cpp): calling
 * them there ends the process with an undefined symbol, so its sweep leaves them to the GPU runs.
 */
const WITHOUT_FAKE_KERNEL = new Set(['nttForward', 'nttInverse', 'automorphismNtt', 'automorphismCoeff', 'basisConvert', 'rescaleNtt']);

/**
 * Good calls for the sweeps' `examples` on `device` (`'cpu'` or `'cuda:0'`): each is then made
 * with one argument, or one option, replaced by a hostile value, which reaches the checks of
 * later arguments and of options. Inputs are small: two 50-bit NTT primes, N = 1024. On the
 * fake-CUDA build, the calls of kernels it does not fake are left out.
 */
export function sweepExamples(device: string): Record<string, ArgumentExample> {
  const all = allSweepExamples(device);
  if (device === 'cpu' || !nativeInfo().fakeCudaRuntime) return all;
  return Object.fromEntries(Object.entries(all).filter(([name]) => !WITHOUT_FAKE_KERNEL.has(name)));
}

function allSweepExamples(device: string): Record<string, ArgumentExample> {
  const primes = nttPrimes(50, LOG_N, 2);
  const [p0, p1] = primes as [bigint, bigint];
  const moduli = modulusTable(primes, { device });
  const ntt = NttTables.build(LOG_N, primes, { device });
  const conversion = BasisConversionTables.build([p0], [p1], { device });
  const rescale = RescaleTables.build(primes, { device });
  const poly = (components = 2): Tensor => Tensor.fromArray(new BigUint64Array(components * 2 * N).fill(3n), { shape: [components, 2, N], device });
  const oneLimb = (): Tensor => Tensor.fromArray(new BigUint64Array(N).fill(5n), { shape: [1, 1, N], device });
  const stream = device === 'cpu' ? undefined : Stream.current(device);
  const call = (fn: (...args: never[]) => unknown): ArgumentExample['run'] => fn as unknown as ArgumentExample['run'];
  return {
    addMod: { args: () => [poly(), poly(1), moduli, { zeroExtend: true, out: poly() }], run: call(addMod) },
    subMod: { args: () => [poly(), poly(), moduli, { out: poly() }], run: call(subMod) },
    mulMod: { args: () => [poly(), poly(), moduli, { out: poly() }], run: call(mulMod) },
    negMod: { args: () => [poly(), moduli, { out: poly() }], run: call(negMod) },
    polyEvalMod: { args: () => [poly(3), poly(1).select(0, 0), moduli, { out: poly(1) }], run: call(polyEvalMod) },
    tensorProductMod: { args: () => [poly(), poly(), moduli, { out: poly(3) }], run: call(tensorProductMod) },
    shoupPrecompute: { args: () => [poly(1).select(0, 0), moduli], run: call(shoupPrecompute) },
    mulModShoup: { args: () => [poly(), poly(1).select(0, 0), poly(1).select(0, 0), moduli, { out: poly() }], run: call(mulModShoup) },
    modulusTable: { args: () => [primes, { device }], run: call(modulusTable) },
    'Tensor.empty': { args: () => [[2, 3], { dtype: 'uint64', device, pinMemory: false }], run: call(Tensor.empty) },
    'Tensor.fromArray': { args: () => [new Float32Array(6), { shape: [2, 3], device, pinMemory: false }], run: call(Tensor.fromArray) },
    'tensor.narrow': { args: () => [2, 0, 8], run: (...args) => poly().narrow(...(args as [number, number, number])) },
    'tensor.view': { args: () => [[4, N]], run: (...args) => poly().view(args[0] as number[]) },
    'tensor.copy_': { args: () => [poly(), { nonBlocking: false, ...(stream === undefined ? {} : { stream }) }], run: (...args) => poly().copy_(...(args as [Tensor, object])) },
    'tensor.to': { args: () => ['cpu', { nonBlocking: false }], run: (...args) => poly().to(...(args as [string, object])) },
    copyTensors: { args: () => [[poly()], [poly()], { nonBlocking: false, ...(stream === undefined ? {} : { stream }) }], run: call(copyTensors) },
    'new TensorCopyBatch': { args: () => [[poly(), poly()]], run: (...args) => new TensorCopyBatch(args[0] as Tensor[]) },
    'NttTables.build': { args: () => [LOG_N, primes, { device }], run: call(NttTables.build) },
    nttForward: { args: () => [poly(), ntt, { out: poly(), limbToPrime: [0, 1] }], run: call(nttForward) },
    nttInverse: { args: () => [poly(), ntt, { out: poly() }], run: call(nttInverse) },
    automorphismNtt: { args: () => [poly(), 5, { out: poly() }], run: call(automorphismNtt) },
    automorphismCoeff: { args: () => [poly(), 5, moduli, { out: poly() }], run: call(automorphismCoeff) },
    'BasisConversionTables.build': { args: () => [[p0], [p1], { device }], run: call(BasisConversionTables.build) },
    basisConvert: { args: () => [oneLimb(), conversion, {}], run: call(basisConvert) },
    'RescaleTables.build': { args: () => [primes, { device }], run: call(RescaleTables.build) },
    rescaleNtt: { args: () => [poly(), ntt, rescale, {}], run: call(rescaleNtt) },
    mulAccumulateMod: { args: () => [[poly(), poly()], [poly(1).select(0, 0), poly(1).select(0, 0)], moduli, { out: poly(), accumulate: true }], run: call(mulAccumulateMod) },
    sampleUniformMod: { args: () => [poly(1), moduli, { key: new Uint8Array(SAMPLING_KEY_BYTES), stream: 0 }], run: call(sampleUniformMod) },
  };
}
