/**
 * A real OGG/Opus file, written by hand (no encoder on the machine): the identification header
 * (OpusHead), the comment header (OpusTags) and 20 ms silent CELT frames (`f8 ff fe`), each on
 * OGG pages with the format's own CRC-32 (polynomial 0x04C11DB7, not reflected). What a Telegram
 * client sends as a voice note has this same layout.
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ b) & 0xff] ?? 0)) >>> 0;
  return crc >>> 0;
}

const SERIAL = 0x0b71a5ed;
const SILENT_FRAME = Buffer.from([0xf8, 0xff, 0xfe]);
const SAMPLES_PER_FRAME = 960;
const PRE_SKIP = 312;

function page(o: { packets: Buffer[]; granule: bigint; seq: number; flags: number }): Buffer {
  const lacing: number[] = [];
  for (const p of o.packets) {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    lacing.push(n);
  }
  const header = Buffer.alloc(27 + lacing.length);
  header.write('OggS', 0, 'latin1');
  header.writeUInt8(0, 4);
  header.writeUInt8(o.flags, 5);
  header.writeBigUInt64LE(o.granule, 6);
  header.writeUInt32LE(SERIAL, 14);
  header.writeUInt32LE(o.seq, 18);
  header.writeUInt32LE(0, 22);
  header.writeUInt8(lacing.length, 26);
  Buffer.from(lacing).copy(header, 27);
  const whole = Buffer.concat([header, ...o.packets]);
  whole.writeUInt32LE(oggCrc(whole), 22);
  return whole;
}

/** `ms` of silence (rounded to 20 ms frames), mono, 48 kHz, as OGG/Opus bytes. */
export function oggOpusSilence(ms = 400): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head.writeUInt8(1, 8);
  head.writeUInt8(1, 9);
  head.writeUInt16LE(PRE_SKIP, 10);
  head.writeUInt32LE(48_000, 12);
  head.writeInt16LE(0, 16);
  head.writeUInt8(0, 18);
  const vendor = Buffer.from('bria-testkit', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length);
  const frames = Math.max(1, Math.round(ms / 20));
  return Buffer.concat([
    page({ packets: [head], granule: 0n, seq: 0, flags: 0x02 }),
    page({ packets: [tags], granule: 0n, seq: 1, flags: 0 }),
    page({ packets: Array.from({ length: frames }, () => SILENT_FRAME), granule: BigInt(PRE_SKIP + frames * SAMPLES_PER_FRAME), seq: 2, flags: 0x04 }),
  ]);
}

export interface OggPage {
  flags: number;
  granule: bigint;
  seq: number;
  crcOk: boolean;
  packets: Buffer[];
}

/** Reads OGG pages back (each CRC checked): what a decoder would see first. */
export function readOggPages(bytes: Buffer): OggPage[] {
  const pages: OggPage[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    if (bytes.toString('latin1', pos, pos + 4) !== 'OggS') throw new Error(`no OggS capture pattern at ${pos}`);
    const count = bytes.readUInt8(pos + 26);
    const lacing = [...bytes.subarray(pos + 27, pos + 27 + count)];
    const size = lacing.reduce((a, b) => a + b, 0);
    const end = pos + 27 + count + size;
    const copy = Buffer.from(bytes.subarray(pos, end));
    const crc = copy.readUInt32LE(22);
    copy.writeUInt32LE(0, 22);
    const packets: Buffer[] = [];
    let at = pos + 27 + count;
    let current: Buffer[] = [];
    for (const l of lacing) {
      current.push(bytes.subarray(at, at + l));
      at += l;
      if (l < 255) {
        packets.push(Buffer.concat(current));
        current = [];
      }
    }
    pages.push({
      flags: bytes.readUInt8(pos + 5),
      granule: bytes.readBigUInt64LE(pos + 6),
      seq: bytes.readUInt32LE(pos + 18),
      crcOk: oggCrc(copy) === crc,
      packets,
    });
    pos = end;
  }
  return pages;
}
