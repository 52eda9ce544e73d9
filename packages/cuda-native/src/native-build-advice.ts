/**
 * What the loader's `NativeLoadError` tells the user to do, which depends on where this package
 * lives: a workspace of the FHElium monorepo builds the addon with its Nx build target; a package
 * installed as a dependency builds it with its npm `install` script (tools/install.mjs), which
 * npm 12 and later and pnpm 10 and later skip unless the project allows it. A user who follows
 * the monorepo's advice in a project of their own finds no such workspace, so the two texts
 * differ.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * True when `packageRoot` is `packages/cuda-native` of the FHElium monorepo: its grandparent has
 * an `nx.json` and a `package.json` declaring workspaces. The same rule as `insideMonorepo()` in
 * tools/install.mjs, which runs before `dist/` exists and so cannot import this.
 */
export function isMonorepoWorkspace(packageRoot: string): boolean {
  const packagesDir = path.dirname(packageRoot);
  if (path.basename(packageRoot) !== 'cuda-native' || path.basename(packagesDir) !== 'packages') return false;
  const root = path.dirname(packagesDir);
  if (!existsSync(path.join(root, 'nx.json'))) return false;
  try {
    const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces?: unknown };
    if (Array.isArray(workspaces)) return true;
    return typeof workspaces === 'object' && workspaces !== null && Array.isArray((workspaces as { packages?: unknown }).packages);
  } catch {
    return false;
  }
}

const BUILD_NEEDS = 'needs cmake and a C++ compiler; nvcc adds CUDA, FHELIUM_BACKENDS=cpu forces a CPU-only build';

/**
 * The "To fix" lines of a `NativeLoadError` for this package at `packageRoot`. Every variant ends
 * with the `FHELIUM_NATIVE_PATH` way out.
 */
export function nativeBuildAdvice(packageRoot: string): string[] {
  if (isMonorepoWorkspace(packageRoot)) {
    return [
      `To fix: build it with \`npm run build -w @fhelium/cuda-native\` (${BUILD_NEEDS}), or set ` +
        'FHELIUM_NATIVE_PATH to a built fhelium_native.node.',
    ];
  }
  return [
    'To fix: this package builds the addon when it is installed, in its install script (' +
      `${BUILD_NEEDS}). npm 12 and later, and pnpm 10 and later, skip a dependency's install script ` +
      'unless your project allows it. Allow it, then build:',
    '  - npm: add "allowScripts": { "@fhelium/cuda-native": true } to your package.json (or run ' +
      '`npm install-scripts approve @fhelium/cuda-native`), then run `npm rebuild @fhelium/cuda-native`;',
    '  - pnpm: add "pnpm": { "onlyBuiltDependencies": ["@fhelium/cuda-native"] } to your package.json ' +
      '(or run `pnpm approve-builds`), then run `pnpm rebuild @fhelium/cuda-native`.',
    'The rebuild also shows why an earlier build failed. Or set FHELIUM_NATIVE_PATH to a built ' +
      'fhelium_native.node.',
  ];
}
