/**
 * Double buffering with two ReusableValueBuffers, as the execution reference sketches it.
 *
 * Each round brings a new input tile from the host. While a consumer kernel reads tile r from one
 * buffer on the compute stream, tile r + 1 is already being copied into the other buffer on a
 * transfer stream, from pinned host memory, so host-to-device transfers overlap with compute.
 * Everything is ordered with CUDA events; the host never waits for the GPU inside the loop except
 * before it rewrites a pinned staging tile whose previous copy has not finished yet.
 *
 *   round r:  host fills staging[r % 2]
 *             transfer stream: wait for "consumer of round r - 2 finished" → copy into buffers[r % 2]
 *             compute stream:  wait for that copy → addMod(tile, weights) → record "consumed"
 *
 * The consumer here is `addMod` of `@fhelium/cuda-native` (element-wise modular addition of RNS
 * limbs), writing each round's result into its own slice of a results tensor, so a caller can
 * check every round.
 */
import { ReusableValueBuffer, pinValueTree, type CopyHandle } from '@fhelium/buffer';
import { addMod, Event, modulusTable, Stream, Tensor, withStream } from '@fhelium/cuda-native';

/** A tile: one RNS polynomial of `limbs` × `n` uint64 residues. */
export interface Tile {
  readonly x: Tensor;
}

/** Parameters of {@link runDoubleBuffering}. */
export interface DoubleBufferingOptions {
  /** Number of rounds (tiles). */
  readonly rounds: number;
  /** RNS limbs per tile. */
  readonly limbs: number;
  /** Residues per limb. */
  readonly n: number;
  /** The modulus of every limb (odd, below 2^62). */
  readonly modulus: bigint;
  /** The host data of round `r`: `limbs × n` residues below `modulus`. */
  readonly tileData: (round: number) => BigUint64Array;
  /** The weights every tile is added to: `limbs × n` residues below `modulus`. */
  readonly weights: BigUint64Array;
  /** CUDA device. Default `'cuda:0'`. */
  readonly device?: string;
}

/**
 * Runs the double-buffered pipeline and returns every round's result, `(tile_r + weights) mod q`,
 * as one array of `rounds × limbs × n` residues (round-major).
 */
export function runDoubleBuffering(options: DoubleBufferingOptions): BigUint64Array {
  const { rounds, limbs, n, modulus, tileData, weights } = options;
  const device = options.device ?? 'cuda:0';
  const shape = [limbs, n];

  const transfer = new Stream(device);
  const compute = new Stream(device);
  const moduli = modulusTable(Array.from({ length: limbs }, () => modulus), { device });
  const weightsOnDevice = Tensor.fromArray(weights, { shape, device });
  const results = Tensor.empty([rounds, limbs, n], { dtype: 'uint64', device });

  // Two buffers with the structure of one tile, and two pinned staging tiles the host fills.
  const prototype: Tile = { x: Tensor.empty(shape, { dtype: 'uint64' }) };
  const buffers = [ReusableValueBuffer.like(prototype, { device }), ReusableValueBuffer.like(prototype, { device })];
  const staging = [pinValueTree(prototype), pinValueTree(prototype)];
  prototype.x.dispose();

  const copies: (CopyHandle | undefined)[] = [undefined, undefined];
  const consumed: (Event | undefined)[] = [undefined, undefined];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const slot = round % 2;
      const buffer = buffers[slot] as ReusableValueBuffer<Tile>;
      const stage = staging[slot] as Tile;

      // Host: the pinned tile may still be read by the copy of round - 2; wait for that copy only.
      copies[slot]?.synchronize();
      const host = Tensor.fromArray(tileData(round), { shape });
      stage.x.copy_(host);
      host.dispose();

      // Transfer stream: overwrite the buffer once the consumer of round - 2 has finished reading it.
      const previousRead = consumed[slot];
      const copy = buffer.copyFrom(stage, { stream: transfer, waitFor: previousRead === undefined ? [] : [previousRead] });
      copies[slot] = copy;
      // The wait is enqueued; the event is not needed any more.
      previousRead?.dispose();

      // Compute stream: wait for this copy, read the tile, and mark the buffer free again.
      withStream(compute, () => {
        buffer.waitFor(copy, compute);
        const out = results.select(0, round);
        addMod(buffer.value.x, weightsOnDevice, moduli, { out });
        out.dispose();
        consumed[slot] = new Event({ enableTiming: false }).record(compute);
      });
    }
    compute.synchronize();
    return results.toArray() as BigUint64Array;
  } finally {
    compute.synchronize();
    transfer.synchronize();
    for (const buffer of buffers) buffer.close();
    for (const stage of staging) stage.x.dispose();
    for (const event of consumed) event?.dispose();
    results.dispose();
    weightsOnDevice.dispose();
    moduli.dispose();
    transfer.dispose();
    compute.dispose();
  }
}
