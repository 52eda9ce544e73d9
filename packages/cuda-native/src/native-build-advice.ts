/**
 * What the loader's `NativeLoadError` tells the user to do, which depends on where this package
 * lives: a workspace of the FHElium monorepo builds the addon with its Nx build target; a package
 * installed as a dependency builds it with its npm `install` script (tools/install.mjs), which
 * npm 12 and later and pnpm 10 and later skip unless it is allowed: in the project's
 * package.json, or for npx and global installs (no project) with npm's --allow-scripts flag or
 * user config. A user who follows the monorepo's advice in a project of their own finds no such
 * workspace, so the texts differ.
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
 * The folder npx installed this package into (`<npm cache>/_npx/<hash>`), or null when
 * `packageRoot` is not inside one. npx reuses that folder on later runs, so a copy installed
 * without its install script stays unbuilt until the folder is removed.
 */
export function npxInstallDir(packageRoot: string): string | null {
  const parts = path.resolve(packageRoot).split(path.sep);
  const at = parts.lastIndexOf('_npx');
  return at >= 0 && at + 1 < parts.length ? parts.slice(0, at + 2).join(path.sep) : null;
}

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
  const npxDir = npxInstallDir(packageRoot);
  return [
    'To fix: this package builds the addon when it is installed, in its install script (' +
      `${BUILD_NEEDS}). npm 12 and later, and pnpm 10 and later, skip a dependency's install script ` +
      'unless it is allowed. Allow it, then build:',
    '  - in a project, with npm: add "allowScripts": { "@fhelium/cuda-native": true } to its package.json ' +
      '(or run `npm install-scripts approve @fhelium/cuda-native`), then run `npm rebuild @fhelium/cuda-native`;',
    '  - in a project, with pnpm: add "pnpm": { "onlyBuiltDependencies": ["@fhelium/cuda-native"] } to its ' +
      'package.json (or run `pnpm approve-builds`), then run `pnpm rebuild @fhelium/cuda-native`;',
    '  - with npx or npm install -g: pass --allow-scripts=@fhelium/cuda-native (for example ' +
      '`npx --allow-scripts=@fhelium/cuda-native @fhelium/cli demo`), or allow it for every run with ' +
      '`npm config set allow-scripts=@fhelium/cuda-native --location=user`, and install again' +
      (npxDir === null
        ? '.'
        : `; this copy is npx's, which npx reuses as it is, so first remove ${npxDir}.`),
    'The rebuild also shows why an earlier build failed. Or set FHELIUM_NATIVE_PATH to a built ' +
      'fhelium_native.node.',
  ];
}
