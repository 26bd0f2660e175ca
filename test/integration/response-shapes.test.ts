// A domain result must not carry a property its response schema would drop: Fastify writes only
// what the schema lists, so such a field would silently never reach a client. Each main result is
// produced for real (the use case called on a live server's database, after real signatures) and
// walked against its schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TSchema } from '@sinclair/typebox';
import { createDocument } from '../../src/domain/documents/create-document.js';
import { listDocuments } from '../../src/domain/documents/list-documents.js';
import { verifyDocument } from '../../src/domain/documents/verify-document.js';
import { signatureReport } from '../../src/domain/documents/signature-report.js';
import { getNotificationDocument } from '../../src/domain/events/get-notification.js';
import { listSubscriptions } from '../../src/domain/events/list-subscriptions.js';
import { getHistory } from '../../src/domain/history/get-history.js';
import { closeDocumentSet } from '../../src/domain/sets/close-set.js';
import { getDocumentSet } from '../../src/domain/sets/get-set.js';
import { getSetSigningInfo } from '../../src/domain/sets/get-set-signing-info.js';
import { getDocumentPage } from '../../src/domain/signing/get-document-page.js';
import { getSigningInfo } from '../../src/domain/signing/get-signing-info.js';
import { updateDocumentWorkflow } from '../../src/domain/workflows/update-document-workflow.js';
import { updateSigner } from '../../src/domain/workflows/update-signer.js';
import { CreatedDocument, DocumentListing } from '../../src/schemas/documents.js';
import { ListedSubscription, NotificationDocument, SubscriptionList } from '../../src/schemas/events.js';
import { DocumentHistory, SignatureReport } from '../../src/schemas/report.js';
import { ClosedSet, DocumentSet } from '../../src/schemas/sets.js';
import { DocumentPage, SetSigningInfo, SigningInfo } from '../../src/schemas/signing.js';
import { PublicVerification } from '../../src/schemas/verification.js';
import { SignerUpdateResult, WorkflowUpdateResult } from '../../src/schemas/workflows.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { droppedKeys } from '../helpers/schema-keys.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signaturePng } from '../helpers/validators.js';

let s: TestServer;
let accountId: string;
let pdf: string;
beforeAll(async () => {
  s = await startTestServer();
  accountId = (await s.deps.db.selectFrom('accounts').select('id').where('web_id', '=', s.creds.webId).executeTakeFirstOrThrow()).id;
  pdf = (await makePdf([A4, A4])).toString('base64');
});
afterAll(() => s?.close());

const box = (page: number, x = 60) => ({ page, rect: { lx: x, ly: 60, tx: x + 200, ty: 130 } });
const drawn = { signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` }, consent: true };
const tokenOf = (url: string) => url.split('/').pop()!;

async function post(path: string, body: unknown) {
  const res = await fetch(s.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return res.json();
}

function expectNothingDropped(schema: TSchema, value: unknown) {
  expect(droppedKeys(schema, value)).toEqual([]);
}

describe('domain results against their response schemas', () => {
  it('create, signing info, sign, report, history, document page, listing, public verification, notification, workflow and signer edits', async () => {
    const created = await createDocument(s.deps, {
      accountId,
      payload: {
        b64_doc: pdf,
        name: 'Contrato',
        stickers: [
          { authority: 'EMAIL_LINK', data: 'ana@example.com', name: 'Ana García', ...box(0) },
          { authority: 'EMAIL', data: 'bruno@example.com', ...box(1, 320) },
          { authority: 'EMAIL_LINK', data: 'carla@example.com', ...box(1) },
        ],
        shout: true,
      },
    });
    expectNothingDropped(CreatedDocument, created);
    const [ana, bruno, carla] = created.stickers.map((x) => tokenOf(x.signer_url));

    expectNothingDropped(SigningInfo, await getSigningInfo(s.deps, ana));
    expectNothingDropped(SigningInfo, await getSigningInfo(s.deps, bruno));
    await post(`/sign/api/${ana}/sign`, drawn);

    const report = await signatureReport(s.deps, { accountId, ticket: created.document_ticket });
    expect(report.firmas).toHaveLength(1);
    expectNothingDropped(SignatureReport, report);
    expectNothingDropped(DocumentHistory, await getHistory(s.deps, { accountId, ticket: created.document_ticket }));
    expectNothingDropped(DocumentPage, await getDocumentPage(s.deps, created.document_ticket));
    expectNothingDropped(DocumentListing, await listDocuments(s.deps, { accountId, limit: '1' }));
    const verification = await verifyDocument(s.deps, { ticket: created.document_ticket });
    expect(verification.signatures).toHaveLength(1);
    expect(verification.pending_signers).toHaveLength(2);
    expectNothingDropped(PublicVerification, verification);

    const notification = await s.deps.db
      .selectFrom('notifications')
      .select('notification_id')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expectNothingDropped(
      NotificationDocument,
      await getNotificationDocument(s.deps, { accountId, notificationId: notification.notification_id }),
    );

    const signer = created.stickers[2].signer_id;
    const edited = await updateSigner(s.deps, { accountId, ticket: created.document_ticket, signerId: signer, body: { name: 'Carla' } });
    expectNothingDropped(SignerUpdateResult, edited);
    expect(tokenOf(edited.signer.signer_url)).not.toBe(carla);
    const workflow = await updateDocumentWorkflow(s.deps, {
      accountId,
      ticket: created.document_ticket,
      body: { remindEvery: 3, language: 'en', conclusion_emails: ['x@example.com'] },
    });
    expectNothingDropped(WorkflowUpdateResult, workflow);
  });

  it('a document set: the set, its closing, and a set link', async () => {
    const set = await s.client.createDocumentSet({ name: 'Alta', metadata: { crm: 1 } });
    await s.client.createDocument({
      b64_doc: pdf,
      document_set: set.uuid,
      stickers: [{ authority: 'EMAIL_LINK', data: 'dora@example.com', name: 'Dora', ...box(0) }],
    });
    expectNothingDropped(DocumentSet, await getDocumentSet(s.deps, { accountId, uuid: set.uuid }));
    const closed = await closeDocumentSet(s.deps, { accountId, body: { documentSet: set.uuid, workflow: { ordered: true } } });
    expectNothingDropped(ClosedSet, closed);
    expectNothingDropped(DocumentSet, await getDocumentSet(s.deps, { accountId, uuid: set.uuid }));
    expectNothingDropped(SetSigningInfo, await getSetSigningInfo(s.deps, tokenOf(closed.signers[0].signer_url)));
  });

  it('subscriptions', async () => {
    await s.client.createSubscription('document_completed', 'https://example.com/hook');
    expectNothingDropped(SubscriptionList, await listSubscriptions(s.deps, { accountId }));
  });
});

describe('the check itself', () => {
  it('fails when a schema lacks a property the result carries', () => {
    const report = {
      InkSignatures: [],
      firmas: [{ ocsp: { signatureValid: true, certStatus: 'good', signer: 'CN=OCSP' }, ipAddress: '127.0.0.1' }],
    };
    expect(droppedKeys(SignatureReport, report)).toEqual([]);
    // The same schema with one property taken out: exactly that property is reported.
    const clipped = structuredClone(SignatureReport) as unknown as {
      properties: { firmas: { items: { properties: { ocsp: { properties: Record<string, unknown> } } } } };
    };
    delete clipped.properties.firmas.items.properties.ocsp.properties.signer;
    expect(droppedKeys(clipped, report)).toEqual(['firmas[0].ocsp.signer']);
    // Nullable parts and open objects (additionalProperties) are followed, not flagged.
    expect(droppedKeys(ListedSubscription, { disabled_at: null, extra: 1 })).toEqual(['extra']);
  });
});
