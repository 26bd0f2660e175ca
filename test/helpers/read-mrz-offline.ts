// Reads the machine-readable zone of the image files named on the command line through the image
// jail, printing each result as a line of JSON; with --faces first, their faces instead (the count
// of faces and the descriptor's length). The identity-checks test runs it in a network namespace
// with no interface but loopback (`unshare -n`), to show OCR and the face models need no network.
import { readFileSync } from 'node:fs';
import { ImageJail } from '../../src/jail/image-jail.js';

const jail = new ImageJail({ qualityTimeoutMs: 15_000, ocrTimeoutMs: 60_000, memoryMb: 512, faceTimeoutMs: 30_000, faceWasmMb: 768 });
try {
  const faces = process.argv[2] === '--faces';
  for (const file of process.argv.slice(faces ? 3 : 2)) {
    const bytes = readFileSync(file);
    if (faces) {
      const r = await jail.readFaces(bytes);
      console.log(JSON.stringify({ faces: r.faces.length, descriptorLength: r.descriptor?.length ?? 0 }));
    } else {
      console.log(JSON.stringify(await jail.readMrz(bytes)));
    }
  }
} finally {
  await jail.close();
}
