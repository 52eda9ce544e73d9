// The native addon as tools/gpu packs it (pack.mjs, pack-variant.mjs): where the build leaves it,
// whether it was built with CUDA, and how it and other binaries are compressed for the device.
import { execFileSync } from 'node:child_process';

/** The addon, relative to the repository root. */
export const ADDON_PATH = 'packages/cuda-native/build/Release/fhelium_native.node';

/**
 * Whether the addon at `addon` links the CUDA runtime: a build without nvcc (or with
 * FHELIUM_BACKENDS=cpu) runs on the GPU machine but never touches the GPU.
 */
export function builtWithCuda(addon) {
  const symbols = execFileSync('nm', ['-D', '--defined-only', addon], { encoding: 'utf8' });
  const strings = execFileSync('strings', [addon], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return /cudaGetDeviceCount|cudart/i.test(symbols + strings);
}

/** Writes `source` xz-compressed (two threads, level 6) to `target`. */
export function xzCompress(source, target) {
  execFileSync('sh', ['-c', `xz -T2 -6 -c "${source}" > "${target}"`], { stdio: 'inherit' });
}
