// POST /developers/json: creates a document from a PDF (b64_doc or url_doc) with its signers'
// boxes, standalone or inside an OPEN document set. Every check runs before anything is stored;
// the PDF is made durable in the blob store before the rows commit. The body's types were checked
// by its schema (schemas/documents.ts); what is checked here needs more: one origin among three,
// keys that exclude each other, the set's state, the PDF's pages (stickers, qr).
import type { Kysely, Transaction } from 'kysely';
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId, newSigningToken } from '../ids.js';
import { countSetDocuments, findSet, type SetRow } from '../../store/documents-repo.js';
import { insertCreatedDocument } from '../../store/create-document-repo.js';
import { ensureBlob } from '../../store/blob-fence.js';
import type { Database } from '../../store/schema.js';
import { appendHistory, firstHistoryEntry } from '../history/append-history.js';
import { generatePdfFromTemplate } from '../templates/generate-pdf.js';
import { pageSizesOf } from './page-sizes.js';
import type { StoredPageSize } from '../../store/page-sizes-repo.js';
import { pdfJailError, readPdf } from './read-pdf.js';
import { adoptDecryptedCopy, type DecryptedDetails } from './decrypted-source.js';
import { exhausted, requirePieceLeft } from '../packages/consume-piece.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { decodeBase64Pdf, fetchPdf, fileName, type PdfSource } from './resolve-pdf-origin.js';
import { type PlannedSigner, type PlannedSticker, validateStickers } from './validate-stickers.js';
import { validateQr, type PlannedQr } from './validate-qr.js';
import { type PlannedSignerField, validateSignerFields } from './validate-signer-fields.js';
import { fieldNameOf } from '../signing/signer-fields.js';
import { SignerFieldError } from '../../pdf/signer-fields.js';
import { QrStampError } from '../../pdf/qr-stamp.js';
import { readWorkflowSettings, type WorkflowSettings } from './workflow-settings.js';
import { requireFutureExpiration } from '../workflows/effective-workflow.js';
import { startDocumentFlow } from '../workflows/start-document-flow.js';
import { insertCertifiedEmail } from '../../store/certified-email-repo.js';
import { parseCertifiedEmail } from '../certified-email/parse-certified-email.js';
import { queueCertifiedEmail } from '../certified-email/queue-certified-email.js';
import { CreateDocumentBody, type CreateDocumentInput, type CreatedDocument, type CreatedSticker } from '../../schemas/documents.js';
import type { CertifiedEmailInput } from '../../schemas/certified-email.js';

/** Top-level keys of the create payload this server reads: the schema's. */
const KNOWN_KEYS = new Set(Object.keys(CreateDocumentBody.properties));
/** Keys of the spec that this server does not act on yet: accepted, reported in warnings. */
const NOT_YET_SUPPORTED = new Set(['manager']);
const ORIGINS = ['b64_doc', 'url_doc', 'template'] as const;

// The answer's shape is defined once, in src/schemas/documents.ts.
export type { CreatedDocument, CreatedSticker };

/** What the payload asks for, checked before any download. */
interface CreateRequest {
  origin: (typeof ORIGINS)[number];
  setUuid: string | undefined;
  /** In a set too: the person verifies once for all their documents of the set (close-set.ts). */
  verifyAll: boolean;
  certified: CertifiedEmailInput | undefined;
  workflow: WorkflowSettings | undefined;
  warnings: string[];
}

/** The document as planned, before its rows are written. */
interface PlannedDocument {
  ticket: string;
  source: PdfSource;
  sha256: string;
  pageCount: number;
  decrypted: DecryptedDetails | undefined;
  signers: PlannedSigner[];
  stickers: PlannedSticker[];
  tokens: ReturnType<typeof newSigningToken>[];
  signerIds: string[];
  stickerIds: string[];
  signerFields: PlannedSignerField[];
  fieldIds: string[];
  pageSizes: StoredPageSize[];
}

export async function createDocument(
  deps: Deps,
  // Unknown keys pass the schema (additionalProperties): they are answered in warnings.
  opts: {
    accountId: string;
    payload: CreateDocumentInput & Record<string, unknown>;
    /** b64_doc as the bytes of its text, when the body's parser left it there (its payload value is then ""). */
    b64DocBytes?: Buffer;
    ip?: string;
    /**
     * Runs in the creation's transaction once the document's rows are written: a bulk run records
     * its row's outcome here, so the document and the record commit together or not at all.
     */
    inCreation?: (trx: Transaction<Database>, created: { documentId: string; ticket: string }) => Promise<void>;
  },
): Promise<CreatedDocument> {
  const { config, clock } = deps;
  const p = opts.payload;
  // Shape checks first: they are cheap and must not wait for a download.
  const req = await readRequest(deps, opts.accountId, p);
  if (req.origin !== 'b64_doc') {
    // Only a shortcut before a download or a render: the insert decides (insertCreatedDocument).
    // With b64_doc the bytes are here, and a read per creation would cost more than it saves.
    await requirePieceLeft(deps.db, { accountId: opts.accountId, kind: 'documents', at: clock.now() });
  }

  const source = await loadSource(deps, opts.accountId, req, p, opts);
  const pdf = await readPdf(deps.pdfJail, source.bytes, config.limits.pages, 'decrypt');
  const decrypted = adoptDecryptedCopy(source, pdf, config.limits.documentBytes);
  const { signers, stickers } = validateStickers(p.stickers, pdf, config.limits);
  const qr = validateQr(p.qr, pdf);
  const signerFields = validateSignerFields(p.signer_fields, pdf, stickers);
  const fieldIds = signerFields.map(() => newPublicId());

  const ticket = newPublicId();
  if (qr.length > 0) {
    // The code links to this ticket's verification page, so it is drawn once the ticket exists and
    // before the file is stored: the stamped file is the source, and every signature covers it.
    source.bytes = await stampVerificationQr(deps, source.bytes, qr, `${config.publicUrl}/verify/${ticket}`);
  }
  if (signerFields.length > 0) {
    // Empty and read-only in the original: a field added after a signature would be a change no
    // signature allows; filled in the signer's revision, it is form filling (pdf/signer-fields.ts).
    source.bytes = await placeFormFields(deps, source.bytes, signerFields, fieldIds);
  }
  const doc: PlannedDocument = {
    ticket,
    source,
    sha256: await deps.blobs.put(source.bytes),
    pageCount: pdf.pageCount,
    decrypted,
    signers,
    stickers,
    tokens: signers.map(() => newSigningToken()),
    signerIds: signers.map(() => newPublicId()),
    stickerIds: stickers.map(() => newPublicId()),
    signerFields,
    fieldIds,
    // Kept by the creation's statement for the signer pages, whose first open would otherwise read
    // the whole file again (a QR code or the fields drawn since change no page's size).
    pageSizes: pageSizesOf(pdf.pages),
  };
  const now = clock.now();
  // Decided at creation (null: the account's default, read by the insert): a later change of the
  // account's default does not change this document.
  const nom151 = typeof p.nom151 === 'boolean' ? p.nom151 : null;
  const rows = { accountId: opts.accountId, req, doc, nom151, now, ip: opts.ip };
  if (req.setUuid === undefined && !doc.decrypted && !req.certified && !req.workflow && !opts.inCreation) {
    // The common case writes in one statement, which is a transaction of its own: BEGIN and COMMIT
    // would be two more round trips for nothing.
    await insertRows(deps.db, deps, { ...rows, setId: null });
  } else {
    await deps.db.transaction().execute(async (trx) => {
      const setId = req.setUuid === undefined ? null : await lockOpenSet(trx, deps, opts.accountId, req.setUuid);
      const documentId = await insertRows(trx, deps, { ...rows, setId });
      await recordCreation(trx, deps, { req, doc, documentId, now });
      await opts.inCreation?.(trx, { documentId, ticket: doc.ticket });
    });
  }
  // An orphan sweep may have removed these bytes between the put and the insert, which held the
  // blob's lock (store/blob-fence.ts): no one knows the ticket before this answer, so storing them
  // again here is in time.
  await ensureBlob(deps.blobs, doc.sha256, doc.source.bytes);
  return answer(deps, req, doc);
}

/** The origin, the set or the workflow, certified email, and the warnings; the set must be OPEN. */
async function readRequest(deps: Deps, accountId: string, p: CreateDocumentInput): Promise<CreateRequest> {
  const origin = originOf(p);
  const warnings = payloadWarnings(p, origin);
  const setUuid = p.document_set;
  const inSet = setUuid !== undefined;
  let certified: CertifiedEmailInput | undefined;
  if (p.certified_email !== undefined) {
    const parsed = parseCertifiedEmail(p.certified_email);
    certified = parsed.input;
    warnings.push(...parsed.warnings);
    if (inSet) {
      throw invalid('certified_email', 'not available for documents of a set yet: create the document on its own');
    }
  }
  if (inSet && p.workflow !== undefined) {
    throw invalid('workflow', "must not be sent with document_set: the set's flow is defined when the set is closed");
  }
  let workflow: WorkflowSettings | undefined;
  if (p.workflow !== undefined) {
    const parsed = readWorkflowSettings(p.workflow, { field: 'workflow', allowCamelCase: true });
    workflow = parsed.settings;
    warnings.push(...parsed.ignoredKeys.map((k) => `workflow.${k}: unknown key; ignored`));
    requireFutureExpiration(workflow, deps.clock.now(), await accountTimeZone(deps.db, accountId), 'workflow');
  }
  if (inSet) {
    // Checked before the download too; checked again under lock when inserting.
    requireOpen(await findSet(deps.db, accountId, setUuid), setUuid);
  }
  return { origin, setUuid, verifyAll: p.requireIdentityVerification === true, certified, workflow, warnings };
}

/** Exactly one of b64_doc, url_doc, template. */
function originOf(p: CreateDocumentInput): CreateRequest['origin'] {
  const origins = ORIGINS.filter((k) => p[k] !== undefined);
  if (origins.length !== 1) {
    throw new AppError(
      'INVALID_ORIGIN',
      origins.length === 0
        ? 'one PDF origin is required: b64_doc, url_doc or template'
        : `only one PDF origin may be sent; got ${origins.join(' and ')}`,
      { field: origins.length ? origins.join(',') : 'b64_doc' },
    );
  }
  return origins[0];
}

/** Unknown keys, and keys that the chosen origin does not use (decisions.md: listed in warnings). */
function payloadWarnings(p: CreateDocumentInput, origin: CreateRequest['origin']): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(p)) {
    if (NOT_YET_SUPPORTED.has(key)) {
      warnings.push(`${key}: not supported by this server yet; ignored`);
    } else if (!KNOWN_KEYS.has(key)) {
      warnings.push(`${key}: unknown key; ignored`);
    }
  }
  if (origin === 'template' && p.name !== undefined) {
    warnings.push('name: ignored with template; the file name is template.name');
  }
  if (origin !== 'template') {
    for (const key of ['fields', 'tables'] as const) {
      if (p[key] !== undefined) {
        warnings.push(`${key}: used only with template; ignored`);
      }
    }
  }
  return warnings;
}

/** The PDF's bytes and file name, from the origin given. */
async function loadSource(
  deps: Deps,
  accountId: string,
  req: CreateRequest,
  p: CreateDocumentInput,
  held: { b64DocBytes?: Buffer },
): Promise<PdfSource> {
  const maxBytes = deps.config.limits.documentBytes;
  if (req.origin === 'template') {
    const generated = await generatePdfFromTemplate(deps, { accountId, template: p.template, fields: p.fields, tables: p.tables });
    req.warnings.push(...generated.warnings);
    if (generated.bytes.length > maxBytes) {
      throw new AppError('DOCUMENT_TOO_LARGE', 'template: the generated document is larger than the document size limit');
    }
    return { origin: 'template', bytes: generated.bytes, name: fileName(generated.name) };
  }
  // Exactly one origin was sent (originOf): without url_doc, it is b64_doc.
  const source: PdfSource =
    p.url_doc !== undefined
      ? await fetchPdf(deps, p.url_doc)
      : { origin: 'b64_doc', bytes: decodeBase64Pdf(held.b64DocBytes ?? p.b64_doc ?? '', maxBytes), name: fileName(p.name) };
  // Decoded, the Base64 text (a third larger than the file) is let go for the rest of the request.
  p.b64_doc = undefined;
  held.b64DocBytes = undefined;
  if (p.name?.trim()) {
    source.name = fileName(p.name);
  }
  return source;
}

/** The set, locked until the creation commits, if it is OPEN and below its limit of documents. */
async function lockOpenSet(trx: Transaction<Database>, deps: Deps, accountId: string, uuid: string): Promise<string> {
  const set = requireOpen(await findSet(trx, accountId, uuid, true), uuid);
  if ((await countSetDocuments(trx, set.id)) >= deps.config.limits.documentsPerSet) {
    throw new AppError('DOCUMENT_SET_FULL', `document_set: a set holds at most ${deps.config.limits.documentsPerSet} documents`);
  }
  return set.id;
}

/**
 * The document with its signers, stickers, first history entry and billed piece, in one statement.
 * A 402 (no piece left) writes nothing (decisions.md "Accounts and packages").
 */
async function insertRows(
  q: Kysely<Database>,
  deps: Deps,
  o: { accountId: string; req: CreateRequest; doc: PlannedDocument; nom151: boolean | null; now: Date; ip?: string; setId: string | null },
): Promise<string> {
  const { req, doc, setId } = o;
  const inSet = setId !== null;
  const created = await insertCreatedDocument(q, {
    ticket: doc.ticket,
    accountId: o.accountId,
    setId,
    name: doc.source.name,
    status: inSet ? 'draft' : 'pending',
    origin: doc.source.origin,
    sha256: doc.sha256,
    sizeBytes: doc.source.bytes.length,
    pageCount: doc.pageCount,
    hasFlow: inSet || req.workflow !== undefined,
    workflow: req.workflow ?? null,
    nom151: o.nom151,
    createdAt: o.now,
    signers: doc.signers.map((s, i) => ({
      signerId: doc.signerIds[i],
      position: s.position,
      authority: s.authority,
      data: s.data,
      name: s.name,
      email: s.email,
      tokenHash: doc.tokens[i].hash,
      tokenSealed: deps.secrets.seal(doc.tokens[i].token),
      requireIdentityVerification: req.verifyAll || s.requireIdentityVerification,
      certificateMatch: s.certificateMatch,
    })),
    stickers: doc.stickers.map((s, i) => ({
      stickerId: doc.stickerIds[i],
      signerPosition: s.signerPosition,
      index: s.index,
      page: s.page,
      rect: s.rect,
      extra: s.extra,
    })),
    pageSizes: doc.pageSizes,
    signerFields: doc.signerFields.map((f, i) => ({
      fieldId: doc.fieldIds[i],
      stickerId: doc.stickerIds[f.stickerIndex],
      signerPosition: f.signerPosition,
      index: f.index,
      type: f.type,
      page: f.page,
      rect: f.rect,
      required: f.required,
      label: f.label,
      format: f.format,
      options: f.options,
      dateFormat: f.dateFormat,
    })),
    firstEntry: firstHistoryEntry(doc.ticket, {
      at: o.now,
      action: 'created',
      actor: 'account',
      ip: o.ip ?? null,
      details: {
        name: doc.source.name,
        signers: doc.signers.length,
        origin: doc.source.origin,
        ...(req.setUuid !== undefined ? { document_set: req.setUuid } : {}),
      },
    }),
    channel: doc.source.origin,
  });
  if (created === undefined) {
    throw exhausted('documents');
  }
  return created;
}

/** What else commits with the rows, when asked for: the decrypted copy's entry, certified email, the flow. */
async function recordCreation(
  trx: Transaction<Database>,
  deps: Deps,
  o: { req: CreateRequest; doc: PlannedDocument; documentId: string; now: Date },
): Promise<void> {
  const { req, doc, documentId, now } = o;
  if (doc.decrypted) {
    await appendHistory(trx, { documentId, at: now, action: 'decrypted', actor: 'system', details: { ...doc.decrypted } });
  }
  if (req.certified) {
    // Without signers the document is final as created and goes now; otherwise the signed
    // original goes with the last signature (signing/conclude-signature.ts).
    const c = req.certified;
    const sendOn = doc.signers.length > 0 ? 'completed' : 'created';
    await insertCertifiedEmail(trx, { documentId, recipient: c.to, subject: c.subject, message: c.message, sendOn, at: now });
    if (doc.signers.length === 0) {
      await queueCertifiedEmail(trx, deps, { documentId, pdfSha256: doc.sha256 });
    }
  }
  if (req.workflow) {
    // The flow starts with the document: its invitations commit with it, or not at all.
    await startDocumentFlow(trx, deps, { documentId, workflow: req.workflow });
  }
}

function answer(deps: Deps, req: CreateRequest, doc: PlannedDocument): CreatedDocument {
  const publicUrl = deps.config.publicUrl;
  return {
    document_ticket: doc.ticket,
    document_url: `${publicUrl}/document/${doc.ticket}`,
    document_flow: req.setUuid !== undefined || req.workflow !== undefined,
    sticker_count: doc.stickers.length,
    stickers: doc.stickers.map((s, i) => {
      const signer = doc.signers[s.signerPosition];
      return {
        sticker_id: doc.stickerIds[i],
        signer_id: doc.signerIds[s.signerPosition],
        sticker_index: s.index,
        sticker_authority: signer.authority,
        sticker_data: signer.data,
        sticker_email: signer.email,
        sticker_page: s.page,
        sticker_coordinates: s.rect,
        signer_url: `${publicUrl}/sign/${doc.tokens[s.signerPosition].token}`,
      };
    }),
    signer_fields: doc.signerFields.map((f, i) => ({
      id: doc.fieldIds[i],
      signer: f.stickerIndex,
      signer_id: doc.signerIds[f.signerPosition],
      type: f.type,
      page: f.page,
      rect: f.rect,
      label: f.label,
    })),
    warnings: req.warnings,
  };
}

/** The set, if it exists in the account and is OPEN; else the error a client should see. */
function requireOpen(set: SetRow | undefined, uuid: string): SetRow {
  if (!set) {
    throw new AppError('DOCUMENT_SET_NOT_FOUND', `document_set: no document set ${uuid}`, { field: 'document_set' });
  }
  if (set.status !== 'OPEN') {
    throw new AppError('DOCUMENT_SET_CLOSED', `document_set: the set is ${set.status}; documents can only be added while it is OPEN`, {
      field: 'document_set',
      status: set.status,
    });
  }
  return set;
}

async function stampVerificationQr(deps: Deps, bytes: Buffer, qr: PlannedQr[], url: string): Promise<Buffer> {
  try {
    return await deps.pdfJail.stampQr(bytes, qr, url);
  } catch (err) {
    if (err instanceof QrStampError) {
      throw new AppError('PDF_INVALID', `qr: the code cannot be drawn on this PDF: ${err.message}`);
    }
    throw pdfJailError(err);
  }
}

async function placeFormFields(deps: Deps, bytes: Buffer, fields: PlannedSignerField[], ids: string[]): Promise<Buffer> {
  try {
    return await deps.pdfJail.placeSignerFields(
      bytes,
      fields.map((f, i) => ({
        name: fieldNameOf(ids[i]),
        type: f.type,
        page: f.page,
        rect: f.rect,
        label: f.label,
        options: f.options ?? undefined,
      })),
    );
  } catch (err) {
    if (err instanceof SignerFieldError) {
      throw invalid('signer_fields', `the fields cannot be added to this PDF: ${err.message}`);
    }
    throw pdfJailError(err);
  }
}
