import type { MetadataRoute } from 'next';

/**
 * The web app manifest (issue 32): Bria installs as a standalone app on phones and desktops, and
 * appears as a share target for text (the shared text becomes a message to a session the user
 * picks on /share).
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    id: '/',
    name: 'Bria',
    short_name: 'Bria',
    description: 'Run and steer your Claude Code and Codex sessions',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#f4f6f9',
    theme_color: '#1f3a5f',
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
    share_target: { action: '/share', method: 'GET', params: { title: 'title', text: 'text', url: 'url' } },
  };
}
