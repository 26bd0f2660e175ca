// The floor of a creation, measured beside scenario A in the same run: an authenticated request that
// commits one row and one blob with their fsyncs, and nothing else. It is the service's own
// `POST /developers/template/save` of a small pdfmake definition, distinct per request (so the
// content-addressed store writes a new blob) under a new name (so the row is an insert): the HMAC
// check, the JSON body and its schema, a walk of a few keys, the blob's write and fsyncs, one
// INSERT and its commit. A creation also reads the PDF in the jail, checks its boxes, and writes
// signers, stickers, history and consumption; how many floors it costs is what the ratio says.
import type { BenchRequest } from './load.js';

export function floorRequest(i: number, sign: (body: Buffer) => string): BenchRequest {
  const body = Buffer.from(
    JSON.stringify({
      template_name: `floor ${process.pid} ${i}`,
      template_type: 'pdfmake',
      template_data: { content: [`Floor request ${i} of process ${process.pid}`] },
    }),
  );
  return {
    method: 'POST',
    path: '/developers/template/save',
    headers: { 'content-type': 'application/json', authorization: sign(body) },
    body,
  };
}
