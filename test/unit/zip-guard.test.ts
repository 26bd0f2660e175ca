import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { ZipBoundsError, checkZipBounds } from '../../src/render/zip-guard.js';
import { buildAllFieldsDocx } from '../helpers/docx.js';

const bounds = { maxEntries: 100, maxTotalBytes: 10 * 1024 * 1024, inflated: (n: string) => n.endsWith('.xml') };

describe('checkZipBounds', () => {
  it('accepts a real docx', async () => {
    const docx = await buildAllFieldsDocx();
    expect(() => checkZipBounds(docx, bounds)).not.toThrow();
  });
  it('refuses an archive that declares more than the limit', async () => {
    const zip = new JSZip();
    zip.file('word/document.xml', Buffer.alloc(11 * 1024 * 1024, 0x20));
    const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(bytes.length).toBeLessThan(100_000);
    expect(() => checkZipBounds(bytes, bounds)).toThrow(/expands to more than 10 MB/);
  });
  it('refuses an entry that inflates to more than it declares (a lying bomb)', async () => {
    const zip = new JSZip();
    zip.file('word/document.xml', Buffer.alloc(1024 * 1024, 0x20));
    const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    // Rewrite the declared uncompressed size (central directory and local header) to 100 bytes.
    const cd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bytes.writeUInt32LE(100, cd + 24);
    bytes.writeUInt32LE(100, 22);
    expect(() => checkZipBounds(bytes, bounds)).toThrow(ZipBoundsError);
    expect(() => checkZipBounds(bytes, bounds)).toThrow(/inflates to more than it declares/);
  });
  it('refuses too many entries and what is not a zip', async () => {
    const zip = new JSZip();
    for (let i = 0; i < 101; i++) {
      zip.file(`f${i}.txt`, 'x');
    }
    expect(() => checkZipBounds(Buffer.from('not a zip at all, just text of some length'), bounds)).toThrow(/not a zip/);
    const many = await zip.generateAsync({ type: 'nodebuffer' });
    expect(() => checkZipBounds(many, bounds)).toThrow(/101 entries/);
  });
});
