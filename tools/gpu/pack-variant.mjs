#!/usr/bin/env node
// Builds the native addon from the working tree as it is now (uncommitted kernel edits included)
// and stores it as .gpu/variants/NAME.node.xz beside a pack of tools/gpu/pack.mjs, so that one
// device call can compare several builds of the addon: tools/gpu/each-variant.sh runs a command
// with each of them there. This is how reports/gpu/2026-12-04T0234-* compared four inner-product
// kernels in one lease.
//
// Usage: node tools/gpu/pack-variant.mjs NAME
//   NAME: letters, digits, '-' and '_' (the file name, and the label in each-variant.sh's output).
//
// pack.mjs empties .gpu/, so pack the variants after it. Afterwards, restore the sources and
// rebuild (npm run build:native -w @fhelium/cuda-native), so that the build here is the packed one
// again. Exits 2 on bad usage or without a pack; the build's own errors end it otherwise.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ADDON_PATH, builtWithCuda, xzCompress } from './addon.mjs';
import { mib, packTotalLine } from './pack-size.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const gpu = join(root, '.gpu');
const say = (message) => console.log(`[gpu:variant] ${message}`);

const [name] = process.argv.slice(2);
if (name === undefined || !/^[A-Za-z0-9_-]+$/.test(name) || name === 'base') {
  console.error('usage: node tools/gpu/pack-variant.mjs NAME  (NAME of letters, digits, - and _; "base" names the packed build)');
  process.exit(2);
}
if (!existsSync(join(gpu, 'COMMIT'))) {
  console.error('pack-variant: .gpu/ holds no pack; run node tools/gpu/pack.mjs first (it empties .gpu/)');
  process.exit(2);
}

say('building the addon from the working tree (npm run build:native -w @fhelium/cuda-native)');
execFileSync('npm', ['run', 'build:native', '-w', '@fhelium/cuda-native'], { cwd: root, stdio: 'inherit' });
const addon = join(root, ADDON_PATH);
if (!builtWithCuda(addon)) {
  console.error('pack-variant: the addon was built without CUDA (is nvcc on PATH, FHELIUM_BACKENDS unset?)');
  process.exit(1);
}

const variants = join(gpu, 'variants');
mkdirSync(variants, { recursive: true });
const file = join(variants, `${name}.node.xz`);
xzCompress(addon, file);
say(`${name}: ${mib(statSync(file).size)}`);
say(packTotalLine(gpu));
say('there: bash tools/gpu/remote.sh none, then from /tmp/fhelium-repo bash tools/gpu/each-variant.sh COMMAND...');
