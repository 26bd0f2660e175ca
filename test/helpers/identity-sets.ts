// A closed document set of two documents for Ana and Bruno, where only the first document asks Ana
// to verify her identity: the set identity tests start from it. Answers both set links (their
// tokens), Ana's own link on the second document, the documents and their tickets.
import type { SelloClient } from '../../src/client/index.js';

const box = (i: number) => ({ page: 0, rect: { lx: 40 + i * 260, ly: 60, tx: 240 + i * 260, ty: 130 } });
let seq = 0;

export async function createVerifyingSet(client: SelloClient, pdf: string, o: { label: string; anaName: string }) {
  const tag = ++seq;
  const name = `${o.label} ${tag}`;
  const set = await client.createDocumentSet({ name });
  const ana = `ana.${tag}.${o.label.toLowerCase()}@example.com`;
  const bruno = `bruno.${tag}.${o.label.toLowerCase()}@example.com`;
  const docs = [];
  for (const verify of [true, false]) {
    docs.push(
      await client.createDocument({
        b64_doc: pdf,
        name: `Contrato ${tag}-${docs.length + 1}`,
        document_set: set.uuid,
        stickers: [
          { authority: 'EMAIL_LINK', data: ana, name: o.anaName, requireIdentityVerification: verify, ...box(0) },
          { authority: 'EMAIL_LINK', data: bruno, name: 'Bruno Díaz', ...box(1) },
        ],
      }),
    );
  }
  const closed = await client.closeDocumentSet(set.uuid);
  const setToken = (data: string) => closed.signers.find((x) => x.data === data)!.signer_url.split('/sign/set/')[1];
  return {
    uuid: set.uuid,
    name,
    docs,
    tickets: docs.map((d) => d.document_ticket),
    ana: setToken(ana),
    bruno: setToken(bruno),
    anaOnSecond: docs[1].stickers[0].signer_url.split('/sign/')[1],
  };
}
