import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { NativeLoadError } from './errors.js';
import { isMonorepoWorkspace, nativeBuildAdvice, npxInstallDir } from './native-build-advice.js';
import { loadBinding } from './native.js';

const thisPackage = path.resolve(import.meta.dirname, '..');

/** A fresh folder holding `files` (relative path → contents); returns its path. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fhelium-advice-'));
  for (const [file, contents] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), contents);
  }
  return root;
}

/** A project that installed @fhelium/cuda-native as a dependency; returns the package's folder. */
function installedAsDependency(): string {
  const root = tree({
    'package.json': JSON.stringify({ name: 'my-app', dependencies: { '@fhelium/ckks': '0.1.0' } }),
    'node_modules/@fhelium/cuda-native/package.json': JSON.stringify({ name: '@fhelium/cuda-native' }),
  });
  return path.join(root, 'node_modules', '@fhelium', 'cuda-native');
}

describe('native build advice', () => {
  it('recognizes this checkout as the monorepo workspace', () => {
    expect(isMonorepoWorkspace(thisPackage)).toBe(true);
  });

  it('recognizes a monorepo layout by nx.json and declared workspaces (array or object form)', () => {
    for (const workspaces of [['packages/*'], { packages: ['packages/*'] }]) {
      const root = tree({ 'nx.json': '{}', 'package.json': JSON.stringify({ workspaces }), 'packages/cuda-native/package.json': '{}' });
      expect(isMonorepoWorkspace(path.join(root, 'packages', 'cuda-native'))).toBe(true);
    }
  });

  it('does not take a look-alike for the monorepo', () => {
    const noNx = tree({ 'package.json': JSON.stringify({ workspaces: ['packages/*'] }), 'packages/cuda-native/package.json': '{}' });
    expect(isMonorepoWorkspace(path.join(noNx, 'packages', 'cuda-native'))).toBe(false);
    const noWorkspaces = tree({ 'nx.json': '{}', 'package.json': '{}', 'packages/cuda-native/package.json': '{}' });
    expect(isMonorepoWorkspace(path.join(noWorkspaces, 'packages', 'cuda-native'))).toBe(false);
    const brokenManifest = tree({ 'nx.json': '{}', 'package.json': '{ not json', 'packages/cuda-native/package.json': '{}' });
    expect(isMonorepoWorkspace(path.join(brokenManifest, 'packages', 'cuda-native'))).toBe(false);
    expect(isMonorepoWorkspace(installedAsDependency())).toBe(false);
  });

  it('tells the monorepo to run the workspace build', () => {
    const advice = nativeBuildAdvice(thisPackage).join('\n');
    expect(advice).toContain('npm run build -w @fhelium/cuda-native');
    expect(advice).toContain('FHELIUM_NATIVE_PATH');
    expect(advice).not.toContain('allowScripts');
  });

  it("tells a dependent project how to let npm or pnpm run the install script, then rebuild", () => {
    const advice = nativeBuildAdvice(installedAsDependency()).join('\n');
    expect(advice).not.toContain('npm run build -w');
    expect(advice).toContain('"allowScripts": { "@fhelium/cuda-native": true }');
    expect(advice).toContain('npm install-scripts approve @fhelium/cuda-native');
    expect(advice).toContain('npm rebuild @fhelium/cuda-native');
    expect(advice).toContain('"pnpm": { "onlyBuiltDependencies": ["@fhelium/cuda-native"] }');
    expect(advice).toContain('pnpm rebuild @fhelium/cuda-native');
    expect(advice).toContain('npx --allow-scripts=@fhelium/cuda-native @fhelium/cli demo');
    expect(advice).toContain('npm config set allow-scripts=@fhelium/cuda-native --location=user');
    expect(advice).toContain('FHELIUM_BACKENDS=cpu');
    expect(advice).toContain('FHELIUM_NATIVE_PATH');
    expect(advice).not.toContain("npx's");
  });

  it("finds npx's install folder, and tells the user to remove it before npx installs again", () => {
    const npxDir = path.join(os.tmpdir(), 'npm-cache', '_npx', '16b387d3f35ceb39');
    const root = path.join(npxDir, 'node_modules', '@fhelium', 'cuda-native');
    expect(npxInstallDir(root)).toBe(npxDir);
    expect(npxInstallDir(installedAsDependency())).toBeNull();
    expect(npxInstallDir(path.join(os.tmpdir(), '_npx'))).toBeNull();
    const advice = nativeBuildAdvice(root).join('\n');
    expect(advice).toContain(`first remove ${npxDir}.`);
    expect(advice).toContain('--allow-scripts=@fhelium/cuda-native');
  });

  it("puts the dependency advice in the loader's error when the package was installed as a dependency", () => {
    const root = installedAsDependency();
    const candidate = { path: path.join(root, 'build', 'Release', 'fhelium_native.node'), source: 'build' };
    let error: unknown;
    try {
      loadBinding([candidate], root);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NativeLoadError);
    const message = (error as NativeLoadError).message;
    expect(message).toContain(`${candidate.path} (build): file not found`);
    expect(message).toContain('npm rebuild @fhelium/cuda-native');
    expect(message).not.toContain('npm run build -w');
  });
});
