// Draws the installed dashboard's PNG icons (apps/web/public/icons) from the app icon's SVG with sharp
// (installed with Next). Run from the repository root when the icon changes: node scripts/make-icons.mjs
import sharp from 'sharp';
const logo = (size, pad) => {
  // The app icon's "B" on the brand square; `pad` shrinks the mark into the maskable safe zone.
  const s = 32,
    inner = s * (1 - 2 * pad),
    off = s * pad;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 32 32"><rect width="32" height="32" rx="${pad ? 0 : 7}" fill="#1f3a5f"/><g transform="translate(${off} ${off}) scale(${inner / s})"><path d="M10 7h7.5a5 5 0 0 1 3.2 8.8A5.5 5.5 0 0 1 18 25h-8z" fill="#fff"/><path d="M14 11v3.5h3.2a1.75 1.75 0 0 0 0-3.5zM14 18v3h3.7a1.5 1.5 0 0 0 0-3z" fill="#1f3a5f"/></g></svg>`;
};
for (const [name, size, pad] of [
  ['icon-192.png', 192, 0],
  ['icon-512.png', 512, 0],
  ['maskable-512.png', 512, 0.1],
  ['badge-96.png', 96, 0],
]) {
  await sharp(Buffer.from(logo(size, pad)))
    .png({ compressionLevel: 9 })
    .toFile(`apps/web/public/icons/${name}`);
}
