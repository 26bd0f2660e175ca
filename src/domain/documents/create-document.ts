// POST /developers/json: creates a document from a PDF (b64_doc or url_doc) with its signers'
// boxes, standalone or inside an OPEN document set. Every check runs before anything is stored;
// the PDF is made durable in the blob store before the rows commit.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { newPublicId, newSigningToken } from '../ids.js';
import { countSetDocuments, findSet, insertDocument, type SetRow } from '../../store/documents-repo.js';
import { appendHistory } from '../history/append-history.js';
import { generatePdfFromTemplate } from '../templates/generate-pdf.js';
import { pdfJailError, readPdf } from './read-pdf.js';
import { adoptDecryptedCopy } from './decrypted-source.js';
import { consumePiece, requirePieceLeft } from '../packages/consume-piece.js';
import { decodeBase64Pdf, fetchPdf, fileName, type PdfSource } from './resolve-pdf-origin.js';
import { validateStickers } from './validate-stickers.js';
import { validateQr, type PlannedQr } from './validate-qr.js';
import { QrStampError } from '../../pdf/qr-stamp.js';
import { parseWorkflowSettings, type WorkflowSettings } from './workflow-settings.js';
import { requireFutureExpiration } from '../workflows/effective-workflow.js';
import { startDocumentFlow } from '../workflows/start-document-flow.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import { accountNom151Default, setDocumentNom151 } from '../../store/stamps-repo.js';
import { insertCertifiedEmail } from '../../store/certified-email-repo.js';
import { parseCertifiedEmail } from '../certified-email/parse-certified-email.js';
import { queueCertifiedEmail } from '../certified-email/queue-certified-email.js';
import type { CreatedDocument, CreatedSticker } from '../../schemas/documents.js';

/** Top-level keys of the create payload this server reads. */
const KNOWN_KEYS = new Set([
  'b64_doc',
  'url_doc',
  'template',
  'fields',
  'tables',
  'stickers',
  'document_set',
  'workflow',
  'name',
  'qr',
  'nom151',
  'certified_email',
  'requireIdentityVerification',
]);
/** Keys of the spec that this server does not act on yet: accepted, reported in warnings. */
const NOT_YET_SUPPORTED = new Set(['manager']);

// The answer's shape is defined once, in src/schemas/documents.ts.
export type { CreatedDocument, CreatedSticker };

export async function createDocument(
  deps: Deps,
  opts: { accountId: string; payload: Record<string, unknown>; ip?: string },
): Promise<CreatedDocument> {
  const { config, db, blobs, clock } = deps;
  const p = opts.payload;
  const warnings: string[] = [];
  for (const key of Object.keys(p)) {
    if (NOT_YET_SUPPORTED.has(key)) {
      warnings.push(`${key}: not supported by this server yet; ignored`);
    } else if (!KNOWN_KEYS.has(key)) {
      warnings.push(`${key}: unknown key; ignored`);
    }
  }

  // Shape checks first: they are cheap and must not wait for a download.
  const origins = (['b64_doc', 'url_doc', 'template'] as const).filter((k) => p[k] !== undefined && p[k] !== null);
  if (origins.length !== 1) {
    throw new AppError(
      'INVALID_ORIGIN',
      origins.length === 0
        ? 'one PDF origin is required: b64_doc, url_doc or template'
        : `only one PDF origin may be sent; got ${origins.join(' and ')}`,
      { field: origins.length ? origins.join(',') : 'b64_doc' },
    );
  }
  if (origins[0] === 'template' && p.name !== undefined) {
    warnings.push('name: ignored with template; the file name is template.name');
  }
  if (origins[0] !== 'template') {
    for (const key of ['fields', 'tables']) {
      if (p[key] !== undefined) {
        warnings.push(`${key}: used only with template; ignored`);
      }
    }
  }
  if (p.name !== undefined && (typeof p.name !== 'string' || p.name.length > 200)) {
    throw invalid('name', 'expected a string of at most 200 characters');
  }
  const setUuid = p.document_set;
  if (setUuid !== undefined && setUuid !== null && (typeof setUuid !== 'string' || setUuid === '')) {
    throw invalid('document_set', 'expected the uuid of a document set');
  }
  const inSet = typeof setUuid === 'string';
  if (p.nom151 !== undefined && p.nom151 !== null && typeof p.nom151 !== 'boolean') {
    throw invalid('nom151', 'expected true (stamp the completed document, NOM-151) or false');
  }
  if (p.requireIdentityVerification !== undefined && typeof p.requireIdentityVerification !== 'boolean') {
    throw invalid('requireIdentityVerification', 'expected true (every signer verifies their identity before signing) or false');
  }
  // In a set too: the person verifies once for all their documents of the set (close-set.ts).
  const verifyAll = p.requireIdentityVerification === true;
  let certified: ReturnType<typeof parseCertifiedEmail>['input'] | undefined;
  if (p.certified_email !== undefined && p.certified_email !== null) {
    const parsed = parseCertifiedEmail(p.certified_email);
    certified = parsed.input;
    warnings.push(...parsed.warnings);
    if (inSet) {
      throw invalid('certified_email', 'not available for documents of a set yet: create the document on its own');
    }
  }
  if (inSet && p.workflow !== undefined && p.workflow !== null) {
    throw invalid('workflow', "must not be sent with document_set: the set's flow is defined when the set is closed");
  }
  let workflow: WorkflowSettings | undefined;
  if (p.workflow !== undefined && p.workflow !== null) {
    const parsed = parseWorkflowSettings(p.workflow, { field: 'workflow', allowCamelCase: true });
    workflow = parsed.settings;
    warnings.push(...parsed.ignoredKeys.map((k) => `workflow.${k}: unknown key; ignored`));
  }
  if (workflow) {
    requireFutureExpiration(workflow, clock.now(), await accountTimeZone(db, opts.accountId), 'workflow');
  }
  if (inSet) {
    // Checked before the download too; checked again under lock when inserting.
    await requireOpenSet(deps, opts.accountId, setUuid);
  }

  await requirePieceLeft(db, { accountId: opts.accountId, kind: 'documents', at: clock.now() });

  let source: PdfSource;
  if (origins[0] === 'template') {
    const generated = await generatePdfFromTemplate(deps, {
      accountId: opts.accountId,
      template: p.template,
      fields: p.fields,
      tables: p.tables,
    });
    warnings.push(...generated.warnings);
    if (generated.bytes.length > config.limits.documentBytes) {
      throw new AppError('DOCUMENT_TOO_LARGE', 'template: the generated document is larger than the document size limit');
    }
    source = { origin: 'template', bytes: generated.bytes, name: fileName(generated.name) };
  } else if (origins[0] === 'b64_doc') {
    source = {
      origin: 'b64_doc',
      bytes: decodeBase64Pdf(typeof p.b64_doc === 'string' ? p.b64_doc : fail('b64_doc'), config.limits.documentBytes),
      name: fileName(p.name as string | undefined),
    };
  } else {
    source = await fetchPdf(deps, p.url_doc);
  }
  if (origins[0] !== 'template' && typeof p.name === 'string' && p.name.trim()) {
    source.name = fileName(p.name);
  }

  const pdf = await readPdf(deps.pdfJail, source.bytes, config.limits.pages, 'decrypt');
  const decrypted = adoptDecryptedCopy(source, pdf, config.limits.documentBytes);
  const { signers, stickers } = validateStickers(p.stickers, pdf, config.limits);
  const qr = validateQr(p.qr, pdf);

  const ticket = newPublicId();
  if (qr.length > 0) {
    // The code links to this ticket's verification page, so it is drawn once the ticket exists and
    // before the file is stored: the stamped file is the source, and every signature covers it.
    source.bytes = await stampVerificationQr(deps, source.bytes, qr, `${config.publicUrl}/verify/${ticket}`);
  }
  const tokens = signers.map(() => newSigningToken());
  const signerIds = signers.map(() => newPublicId());
  const stickerIds = stickers.map(() => newPublicId());
  const sha256 = await blobs.put(source.bytes);
  const now = clock.now();

  await db.transaction().execute(async (trx) => {
    let setId: string | null = null;
    if (inSet) {
      const set = requireOpen(await findSet(trx, opts.accountId, setUuid, true), setUuid);
      if ((await countSetDocuments(trx, set.id)) >= config.limits.documentsPerSet) {
        throw new AppError('DOCUMENT_SET_FULL', `document_set: a set holds at most ${config.limits.documentsPerSet} documents`);
      }
      setId = set.id;
    }
    const documentId = await insertDocument(trx, {
      ticket,
      accountId: opts.accountId,
      setId,
      name: source.name,
      status: inSet ? 'draft' : 'pending',
      origin: source.origin,
      sha256,
      sizeBytes: source.bytes.length,
      pageCount: pdf.pageCount,
      hasFlow: inSet || workflow !== undefined,
      workflow: workflow ?? null,
      extra: {},
      createdAt: now,
      signers: signers.map((s, i) => ({
        signerId: signerIds[i],
        position: s.position,
        authority: s.authority,
        data: s.data,
        name: s.name,
        email: s.email,
        tokenHash: tokens[i].hash,
        tokenSealed: deps.secrets.seal(tokens[i].token),
        requireIdentityVerification: verifyAll || s.requireIdentityVerification,
      })),
      stickers: stickers.map((s, i) => ({
        stickerId: stickerIds[i],
        signerPosition: s.signerPosition,
        index: s.index,
        page: s.page,
        rect: s.rect,
        extra: s.extra,
      })),
    });
    // Decided at creation: a later change of the account's default does not change this document.
    if (typeof p.nom151 === 'boolean' ? p.nom151 : await accountNom151Default(trx, opts.accountId)) {
      await setDocumentNom151(trx, documentId, true);
    }
    // Billed with the document: a 402 here rolls the document back (decisions.md "Accounts and packages").
    await consumePiece(trx, { accountId: opts.accountId, kind: 'documents', channel: source.origin, documentId, at: now });
    await appendHistory(trx, {
      documentId,
      at: now,
      action: 'created',
      actor: 'account',
      ip: opts.ip ?? null,
      details: { name: source.name, signers: signers.length, origin: source.origin, ...(inSet ? { document_set: setUuid } : {}) },
    });
    if (decrypted) {
      await appendHistory(trx, { documentId, at: now, action: 'decrypted', actor: 'system', details: { ...decrypted } });
    }
    if (certified) {
      // Without signers the document is final as created and goes now; otherwise the signed
      // original goes with the last signature (signing/conclude-signature.ts).
      await insertCertifiedEmail(trx, {
        documentId,
        recipient: certified.to,
        subject: certified.subject,
        message: certified.message,
        sendOn: signers.length > 0 ? 'completed' : 'created',
        at: now,
      });
      if (signers.length === 0) {
        await queueCertifiedEmail(trx, deps, { documentId, pdfSha256: sha256 });
      }
    }
    if (workflow) {
      // The flow starts with the document: its invitations commit with it, or not at all.
      await startDocumentFlow(trx, deps, { documentId, workflow });
    }
  });

  return {
    document_ticket: ticket,
    document_url: `${config.publicUrl}/document/${ticket}`,
    document_flow: inSet || workflow !== undefined,
    sticker_count: stickers.length,
    stickers: stickers.map((s, i) => {
      const signer = signers[s.signerPosition];
      return {
        sticker_id: stickerIds[i],
        signer_id: signerIds[s.signerPosition],
        sticker_index: s.index,
        sticker_authority: signer.authority,
        sticker_data: signer.data,
        sticker_email: signer.email,
        sticker_page: s.page,
        sticker_coordinates: s.rect,
        signer_url: `${config.publicUrl}/sign/${tokens[s.signerPosition].token}`,
      };
    }),
    warnings,
  };
}

async function requireOpenSet(deps: Deps, accountId: string, uuid: string) {
  requireOpen(await findSet(deps.db, accountId, uuid), uuid);
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

function fail(field: string): never {
  throw invalid(field, 'expected a Base64 string');
}
