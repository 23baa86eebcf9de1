import type { MetadataRoute } from 'next';

/**
 * The web app manifest (issue 32): Bria installs as a standalone app on phones and desktops, and
 * appears as a share target for text and files (they become a message to a session the user picks
 * on /share).
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
    // POST with files: the service worker takes it (public/sw.js), keeps the files for the share page
    // and opens /share; without the worker the server's /share/receive keeps the text and says the files stayed behind.
    share_target: {
      action: '/share/receive',
      method: 'POST',
      enctype: 'multipart/form-data',
      params: {
        title: 'title',
        text: 'text',
        url: 'url',
        files: [{ name: 'files', accept: ['image/*', 'text/*', 'application/pdf', 'application/json', '*/*'] }],
      },
    },
  };
}
