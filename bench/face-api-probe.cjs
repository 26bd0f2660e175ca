// Whether a face-comparison model package runs on this machine, and how it separates faces: the
// probe behind docs/api.md ("Face comparison: not done"). The packages are not the service's: install
// them in a folder of their own and name it in FACE_DIR:
//   mkdir /tmp/face && cd /tmp/face && npm init -y && npm install @vladmandic/face-api@1.7.15 \
//     @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0
//   FACE_DIR=/tmp/face node bench/face-api-probe.cjs
// It loads the models shipped in the package (WebAssembly backend, files read from disk), finds the
// faces of the package's six demo photographs, and compares each face with itself downscaled to a
// third and recompressed (JPEG 50) and with every other face (Euclidean distance of descriptors).
const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');
const jpeg = require('jpeg-js');
const faceRequire = createRequire(path.join(process.env.FACE_DIR ?? '.', 'package.json'));
const tf = faceRequire('@tensorflow/tfjs');
const wasm = faceRequire('@tensorflow/tfjs-backend-wasm');
const faceapi = faceRequire('@vladmandic/face-api/dist/face-api.node-wasm.js');
const mem = () => Math.round(process.memoryUsage().rss / 1e6) + ' MB rss';
function tensorOf(rgba, w, h) {
  const rgb = new Int32Array(w * h * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) { rgb[j] = rgba[i]; rgb[j + 1] = rgba[i + 1]; rgb[j + 2] = rgba[i + 2]; }
  return tf.tensor3d(rgb, [h, w, 3], 'int32');
}
const realFetch = globalThis.fetch;
// tfjs fetches its .wasm with fetch(), which takes no file path: served from disk, nothing else fetched.
globalThis.fetch = async (u, o) => (typeof u === 'string' && u.startsWith('/') ? new Response(fs.readFileSync(u), { headers: { 'content-type': 'application/wasm' } }) : realFetch(u, o));
(async () => {
  let t = Date.now();
  wasm.setWasmPaths(path.join(path.dirname(faceRequire.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist') + '/', true);
  await tf.setBackend('wasm'); await tf.ready();
  const model = path.join(path.dirname(faceRequire.resolve('@vladmandic/face-api/package.json')), 'model');
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(model);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(model);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(model);
  console.log('backend', tf.getBackend(), 'load', Date.now() - t, 'ms', mem());
  const demo = path.join(path.dirname(faceRequire.resolve('@vladmandic/face-api/package.json')), 'demo');
  const faces = [];
  for (const f of fs.readdirSync(demo).filter((f) => f.endsWith('.jpg'))) {
    const img = jpeg.decode(fs.readFileSync(path.join(demo, f)), { useTArray: true });
    const x = tensorOf(img.data, img.width, img.height);
    t = Date.now();
    const res = await faceapi.detectAllFaces(x, new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 })).withFaceLandmarks().withFaceDescriptors();
    console.log(f, `${img.width}x${img.height}`, res.length, 'faces', Date.now() - t, 'ms', mem());
    res.forEach((r, i) => faces.push({ id: `${f}#${i}`, d: r.descriptor, box: r.detection.box, file: f, img }));
    x.dispose();
  }
  // Same face, transformed (downscaled to 1/3, JPEG q50): the distance to itself vs to the other faces.
  const dist = (a, b) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0));
  let same = [], diff = [];
  for (const f of faces.slice(0, 12)) {
    const { x: bx, y: by, width: bw, height: bh } = f.box;
    const pad = 0.6;
    const x0 = Math.max(0, Math.round(bx - bw * pad)), y0 = Math.max(0, Math.round(by - bh * pad));
    const x1 = Math.min(f.img.width, Math.round(bx + bw * (1 + pad))), y1 = Math.min(f.img.height, Math.round(by + bh * (1 + pad)));
    const cw = x1 - x0, ch = y1 - y0, s = 3;
    const sw = Math.floor(cw / s), sh = Math.floor(ch / s);
    const small = new Uint8Array(sw * sh * 4);
    for (let y = 0; y < sh; y++) for (let x = 0; x < sw; x++) for (let c = 0; c < 4; c++) small[(y * sw + x) * 4 + c] = f.img.data[((y0 + y * s) * f.img.width + x0 + x * s) * 4 + c];
    const re = jpeg.decode(jpeg.encode({ width: sw, height: sh, data: small }, 50).data, { useTArray: true });
    const tt = tensorOf(re.data, sw, sh);
    const r = await faceapi.detectSingleFace(tt, new faceapi.SsdMobilenetv1Options({ minConfidence: 0.3 })).withFaceLandmarks().withFaceDescriptor();
    tt.dispose();
    if (!r) { console.log(f.id, 'not found after transform', `${sw}x${sh}`); continue; }
    same.push(dist(r.descriptor, f.d));
    for (const g of faces) if (g !== f) diff.push(dist(r.descriptor, g.d));
  }
  const q = (a, p) => a.slice().sort((x, y) => x - y)[Math.floor(p * (a.length - 1))].toFixed(3);
  console.log('same face transformed: n', same.length, 'median', q(same, 0.5), 'max', q(same, 1));
  console.log('different faces: n', diff.length, 'min', q(diff, 0), 'p5', q(diff, 0.05), 'median', q(diff, 0.5));
  console.log(mem());
})();
