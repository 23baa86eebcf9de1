// Vite (under vitest) serves files as text with `?raw`; only the doc and purity tests use it.
// Declared narrowly instead of pulling all of vite/client's globals into the workspace.
declare module '*.md?raw' {
  const text: string;
  export default text;
}

interface ImportMeta {
  glob(patterns: string | string[], options: { query: '?raw'; import: 'default'; eager: true }): Record<string, string>;
}
