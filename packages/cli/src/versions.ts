/** Versions of the CLI and of the FHElium packages it finds. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The packages `fhelium info` reports, in layer order. */
export const FHELIUM_PACKAGES = ['@fhelium/signature', '@fhelium/cuda-native', '@fhelium/ckks-values', '@fhelium/ckks', '@fhelium/buffer', '@fhelium/graph'] as const;

/** The version of @fhelium/cli (this file sits one folder below the package root, in src/ or dist/). */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

const requireFromHere = createRequire(import.meta.url);

/** The installed version of `name`, or null when it cannot be resolved from the CLI. */
export function packageVersion(name: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(requireFromHere.resolve(`${name}/package.json`), 'utf8')) as { version?: unknown };
    return String(manifest.version);
  } catch {
    return null;
  }
}
