/**
 * What scripts/build-agent.ts puts into the one-file agent (esbuild `define`): its version
 * (`<package version>-<content hash>`) and the permission hook's program text, which a bundle
 * has no file beside it for. Run from the checkout (tsx), nothing is defined: `null`.
 */
declare const __BRIA_AGENT_BUNDLE__: { version: string; hookSource: string } | undefined;

export const bundleInfo: { version: string; hookSource: string } | null = typeof __BRIA_AGENT_BUNDLE__ === 'undefined' ? null : __BRIA_AGENT_BUNDLE__;

/** The package version of this checkout (root package.json); a bundle reports its own. */
export const SOURCE_VERSION = '0.1.0';
