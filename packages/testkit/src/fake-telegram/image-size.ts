/** Width and height of a PNG, JPEG or GIF, read from its header; undefined for anything else. */
export function imageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 4) === 'GIF8') {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let pos = 2;
    while (pos + 9 < bytes.length) {
      if (bytes[pos] !== 0xff) return undefined;
      const marker = bytes[pos + 1] as number;
      const length = bytes.readUInt16BE(pos + 2);
      // SOF0..SOF15 carry the frame size; C4, C8 and CC are other tables with the same prefix.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: bytes.readUInt16BE(pos + 7), height: bytes.readUInt16BE(pos + 5) };
      }
      pos += 2 + length;
    }
  }
  return undefined;
}
