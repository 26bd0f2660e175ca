// Real image files for identity-verification tests, made here: a PNG of one colour with a darker
// band (so it is not blank), of any size.
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function testPng(width: number, height: number, rgb: [number, number, number] = [200, 180, 150]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  const band = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) {
    row.set(rgb, 1 + x * 3);
    band.set([rgb[0] / 3, rgb[1] / 3, rgb[2] / 3], 1 + x * 3);
  }
  const raw = Buffer.concat(Array.from({ length: height }, (_, y) => (Math.floor(y / 40) % 4 === 0 ? band : row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
