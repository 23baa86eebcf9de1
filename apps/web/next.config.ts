import type { NextConfig } from 'next';

/**
 * Sent with every response (pages, route handlers, 404s, static assets): see docs/architecture.md
 * "Security headers". The dashboard may never be framed (its Stop/Close/Revoke buttons work for the
 * signed-in browser, and local dev servers on other ports of the same host are same-site). Scripts
 * keep 'unsafe-inline' because Next inlines its bootstrap scripts into statically rendered pages; a
 * nonce would need every page rendered per request. Everything else is locked to this origin.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS = [
  { key: 'Content-Security-Policy', value: CSP },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
];

const config: NextConfig = {
  // Core ships TypeScript sources (with `.ts` import extensions); Next compiles them with the app.
  transpilePackages: ['@bria/core'],
  // Native/driver packages stay plain Node requires: the Prisma runtime loads its WASM from disk
  // and pino spawns worker threads; neither survives bundling.
  serverExternalPackages: ['pg', '@prisma/client', '@prisma/adapter-pg', '@prisma/driver-adapter-utils', 'pino', 'ws'],
  poweredByHeader: false,
  reactStrictMode: true,
  headers: async () => [{ source: '/:path*', headers: SECURITY_HEADERS }],
};

export default config;
