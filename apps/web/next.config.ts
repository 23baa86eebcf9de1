import type { NextConfig } from 'next';

const config: NextConfig = {
  // Core ships TypeScript sources (with `.ts` import extensions); Next compiles them with the app.
  transpilePackages: ['@bria/core'],
  // Native/driver packages stay plain Node requires: the Prisma runtime loads its WASM from disk
  // and pino spawns worker threads; neither survives bundling.
  serverExternalPackages: ['pg', '@prisma/client', '@prisma/adapter-pg', '@prisma/driver-adapter-utils', 'pino', 'ws'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
