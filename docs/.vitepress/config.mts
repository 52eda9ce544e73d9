import { existsSync, readFileSync } from 'node:fs';
import { defineConfig, type DefaultTheme } from 'vitepress';

// The API sidebar is written by tools/docs/generate-api.mjs, which the docs build runs first.
// Without it (a bare `vitepress dev` before any build) the API section just has no sidebar.
const apiSidebarFile = new URL('../api/sidebar.json', import.meta.url);
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? JSON.parse(readFileSync(apiSidebarFile, 'utf8'))
  : [];

const guideSidebar: DefaultTheme.SidebarItem[] = [
  { text: 'Start', items: [{ text: 'Getting started', link: '/guide/getting-started' }] },
  {
    text: 'Concepts',
    items: [
      { text: 'Signatures and buffers', link: '/concepts/signatures-and-buffers' },
      { text: 'The CUDA Graph model', link: '/concepts/cuda-graphs' },
      { text: 'CKKS in brief', link: '/concepts/ckks' },
      { text: 'Where host time goes', link: '/concepts/host-costs' },
    ],
  },
  {
    text: 'How-to',
    items: [
      { text: 'Capture a matrix-vector product', link: '/how-to/capture-matrix-vector' },
      { text: 'Serve encrypted computation', link: '/how-to/serve-encrypted-computation' },
      { text: 'Handle errors', link: '/how-to/handle-errors' },
    ],
  },
  { text: 'Measurements', items: [{ text: 'Benchmarks', link: '/benchmarks' }] },
];

export default defineConfig({
  title: 'FHElium',
  description: 'CKKS homomorphic encryption on NVIDIA GPUs (and the CPU) from TypeScript',
  lang: 'en-US',
  // The folder's README is for contributors, not a page of the site.
  srcExclude: ['README.md'],
  cleanUrls: false,
  lastUpdated: false,
  // Internal dead links fail the build; tools/docs/check-links.mjs checks anchors as well.
  ignoreDeadLinks: false,
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Concepts', link: '/concepts/signatures-and-buffers' },
      { text: 'How-to', link: '/how-to/capture-matrix-vector' },
      { text: 'Benchmarks', link: '/benchmarks' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/guide/': guideSidebar,
      '/concepts/': guideSidebar,
      '/how-to/': guideSidebar,
      '/benchmarks': guideSidebar,
      '/api/': apiSidebar,
    },
    outline: [2, 3],
    search: { provider: 'local' },
    footer: {
      message: 'Released under the MIT License.',
      copyright: 'Copyright FHElium contributors',
    },
  },
});
