// Reads the machine-readable zone of the image files named on the command line through the image
// jail, printing each result as a line of JSON. The identity-checks test runs it in a network
// namespace with no interface but loopback (`unshare -n`), to show OCR needs no network.
import { readFileSync } from 'node:fs';
import { ImageJail } from '../../src/jail/image-jail.js';

const jail = new ImageJail({ qualityTimeoutMs: 15_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 30_000, faceWasmMb: 768 });
try {
  for (const file of process.argv.slice(2)) {
    console.log(JSON.stringify(await jail.readMrz(readFileSync(file))));
  }
} finally {
  await jail.close();
}
