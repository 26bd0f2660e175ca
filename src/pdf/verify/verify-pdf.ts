// The verifier of any signed PDF: for each signature, whether it is one (byte-range-rules.ts),
// whether its CMS verifies (pki/cms/signature-cms-check.ts), what every later revision changed
// and whether the signature allows it (revision-diff.ts, change-rules.ts), the PAdES level it reaches
// (ltv-level.ts), and the known attack it looks like when it fails (attack-patterns.ts). It serves
// the signature report, the report of an uploaded file, the NOM-151 validation and the public
// verification pages. Signatures are read from every revision, so one an update took out of the
// form is still judged (vanished-signatures.ts). Pure,
// as pdf/ must be: trusted roots are parameters, times come from the file and its time stamps.
import { type PDF, PdfArray, PdfDict, PdfNumber, type PdfObject, PdfRef, PdfString } from '@libpdf/core';
import { loadAsReaders } from '../encrypted-pdf.js';
import { latin1Of, revisionEnds } from '../pdf-revisions.js';
import { readableBytes } from '../xref-offsets.js';
import { PdfReadError, type PdfSignature, type PdfSignatures, type ReadSignaturesOptions, readSignaturesOf } from '../read-signatures.js';
import { type AttackFinding, modificationAttack, structuralAttack } from './attack-patterns.js';
import { checkSignatureStructure } from './byte-range-rules.js';
import { type ClassifiedChange, classifyChanges } from './change-rules.js';
import { type DocumentFacts, documentFacts } from './document-facts.js';
import { fieldLocks, isLocked } from './field-locks.js';
import { dssCoversChain, type PadesLevel, readDss } from './ltv-level.js';
import { diffRevisions, loadRevisions, objectAt } from './revision-diff.js';
import { unlistedSignatures } from './unlisted-signatures.js';
import { vanishedSignatures } from './vanished-signatures.js';

export { VerifyLimitError } from './revision-diff.js';
export type { AttackFinding, AttackName } from './attack-patterns.js';
export type { PadesLevel } from './ltv-level.js';

/** One change after a signature, and whether that signature allows it. */
export interface SignatureChange {
  revision: number;
  objectNumber: number;
  kind: ClassifiedChange['kind'];
  category: ClassifiedChange['category'];
  description: string;
  allowed: boolean;
}

export interface VerifiedSignature extends PdfSignature {
  /** The first rule the signature breaks (structure first, then the CMS); null when valid. */
  failedRule: string | null;
  /** What the signature's structure has that refuses nothing (byte-range-rules.ts), e.g. contents-trailing-data. */
  warnings: { rule: string; message: string }[];
  /** A later revision changed something this signature does not allow. */
  modifiedAfterSigning: boolean;
  /** What the later revisions changed (at most MAX_CHANGES), allowed or not. */
  changes: SignatureChange[];
  level: PadesLevel;
  /** The signature time stamp (for a document time stamp, the token itself) verifies. */
  timestampValid: boolean;
  /** The validation data of the chain is embedded in the DSS (B-LT and above). */
  ltvEmbedded: boolean;
}

export interface VerifiedPdf extends PdfSignatures {
  signatures: VerifiedSignature[];
  documentIntegrity: 'intact' | 'modified' | 'invalid';
  attacks: AttackFinding[];
}

const MAX_CHANGES = 200;
const ALWAYS_ALLOWED = new Set(['dss', 'timestamp', 'structure', 'metadata', 'unreferenced']);
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

/** The signature's field and raw values, in `pdf` (the revision it is read from). */
function rawValues(pdf: PDF, sig: PdfSignature): { byteRange: number[] | null; contents: Uint8Array | null; field: PdfDict | null } {
  const resolve = (o: PdfObject | undefined) => (o && 'objectNumber' in o ? (objectAt(pdf, o.objectNumber) ?? undefined) : o);
  // By the signature dictionary's number: two fields may share a name, one dictionary has one field.
  const field =
    pdf
      .getForm()
      ?.getSignatureFields()
      .find((f) => {
        const v = f.getDict().get('V');
        return sig.dictionaryNumber === null
          ? !(v instanceof PdfRef) && f.name === sig.fieldName
          : v instanceof PdfRef && v.objectNumber === sig.dictionaryNumber;
      })
      ?.getDict() ?? null;
  // A signature no field leads to (unlisted-signatures.ts) is read from its dictionary's number.
  const dict = field ? resolve(field.get('V')) : sig.dictionaryNumber !== null ? objectAt(pdf, sig.dictionaryNumber) : null;
  if (!(dict instanceof PdfDict)) {
    return { byteRange: null, contents: null, field };
  }
  const br = resolve(dict.get('ByteRange'));
  const contents = resolve(dict.get('Contents'));
  return {
    byteRange: br instanceof PdfArray ? br.toArray().map((n) => (n instanceof PdfNumber ? n.value : Number.NaN)) : null,
    contents: contents instanceof PdfString ? contents.bytes : null,
    field,
  };
}

/** Changes no revision section explains: bytes after the last revision, revisions only a repair reads. */
function unexplained(bytes: Uint8Array, ends: number[], loaded: Set<number>, repaired: number[]): ClassifiedChange[] {
  const out: ClassifiedChange[] = [];
  const base = { objectNumber: 0, kind: 'changed' as const, category: 'other' as const };
  ends.forEach((_, i) => {
    if (i > 0 && (!loaded.has(i + 1) || repaired.includes(i + 1))) {
      out.push({ ...base, revision: i + 1, description: `revision ${i + 1} cannot be read without rebuilding its cross-references` });
    }
  });
  const tail = bytes.subarray(ends[ends.length - 1] ?? bytes.length);
  if (!tail.every(isSpace)) {
    out.push({
      ...base,
      kind: 'added',
      revision: ends.length + 1,
      description: `${tail.length} bytes appended after the last revision, outside any cross-reference section`,
    });
  }
  return out;
}

/**
 * Signature fields that draw on a page without a valid signature ('unsigned'), or with one no
 * trusted authority vouches for ('untrusted'): the sneaky signature, whose appearance can cover
 * what the earlier signers signed. An untrusted one only counts against a trusted signature: when
 * neither is trusted (a file signed by authorities this service does not know) nothing tells the
 * attacker's certificate from the other signers'.
 */
function sneakyFields(finalFacts: DocumentFacts, signatures: PdfSignature[]): Map<string, 'unsigned' | 'untrusted'> {
  const pdf = finalFacts.view.pdf;
  const out = new Map<string, 'unsigned' | 'untrusted'>();
  for (const field of finalFacts.fields.values()) {
    if (!field.isSignature) {
      continue;
    }
    const sig = signatures.find((s) => s.fieldName === field.name);
    if (sig?.validSignature && sig.trusted) {
      continue;
    }
    const visible = field.widgets.some((w) => {
      const d = objectAt(pdf, w);
      const rect = d instanceof PdfDict ? d.get('Rect') : undefined;
      const n = rect instanceof PdfArray ? rect.toArray().map((x) => (x instanceof PdfNumber ? x.value : 0)) : [];
      return n.length === 4 && Math.abs((n[2] - n[0]) * (n[3] - n[1])) > 0 && d instanceof PdfDict && d.has('AP');
    });
    if (visible) {
      out.set(field.name, sig?.validSignature ? 'untrusted' : 'unsigned');
    }
  }
  return out;
}

export async function verifyPdf(bytes: Uint8Array, opts: ReadSignaturesOptions): Promise<VerifiedPdf> {
  // The file as text, made once for every scan of it (pdf-revisions.ts, latin1Of): a 50 MB file
  // scanned four times no longer leaves four 50 MB strings behind.
  const text = latin1Of(bytes);
  const { ends, views, finalPdf } = await readRevisions(bytes, text);
  const read = await readSignaturesOf(finalPdf, bytes, opts, undefined, ends);
  if (views.length === 0) {
    throw new PdfReadError('the PDF cannot be read: no revision of it loads');
  }
  const facts = views.map(documentFacts);
  const finalFacts = facts[facts.length - 1];
  const changes: ClassifiedChange[] = [];
  for (let i = 1; i < views.length; i++) {
    changes.push(...classifyChanges(facts[i - 1], facts[i], diffRevisions(views[i - 1], views[i])));
  }
  const repaired = views.filter((v) => v.repaired).map((v) => v.revision);
  changes.push(...unexplained(bytes, ends, new Set(views.map((v) => v.revision)), repaired));

  const certification = finalFacts.certification;
  const judge: Judging = {
    bytes,
    ends,
    opts,
    facts,
    finalFacts,
    finalDss: readDss(finalPdf),
    changes,
    sneaky: sneakyFields(finalFacts, read.signatures),
    certification,
    certSig: certification ? read.signatures.find((s) => s.dictionaryNumber === certification.signatureNumber) : undefined,
    docTimestamps: read.signatures.filter((s) => s.subFilter === 'ETSI.RFC3161' && s.validSignature && s.trusted),
    attacks: [],
  };
  const all = await signaturesToJudge(facts, finalPdf, read.signatures, bytes, opts, { text, ends });
  const signatures = all.map((entry) => judgeSignature(judge, entry));
  const documentIntegrity = signatures.some((s) => !s.validSignature)
    ? 'invalid'
    : signatures.some((s) => s.modifiedAfterSigning)
      ? 'modified'
      : 'intact';
  return { ...read, signatures, documentIntegrity, attacks: judge.attacks };
}

/** Every revision that loads, and the document as it ends. */
async function readRevisions(bytes: Uint8Array, text: string) {
  const ends = revisionEnds(bytes, text);
  // Parsed from a copy whose cross-reference pointers hit their sections; every hash is over `bytes`.
  const readable = readableBytes(bytes, text);
  const views = await loadRevisions(readable, ends);
  const last = views[views.length - 1];
  let finalPdf: PDF;
  try {
    finalPdf = last && last.end === bytes.length ? last.pdf : await loadAsReaders(readable);
  } catch (err) {
    throw new PdfReadError(`the PDF cannot be read: ${(err as Error).message}`);
  }
  return { ends, views, finalPdf };
}

interface ToJudge {
  signature: PdfSignature;
  /** The revision it is read from: the document as it ends, or the last that still had it. */
  pdf: PDF;
  /** The revision that took it out of the form, if one did. */
  goneAt: number | null;
}

/** The form's signatures, those an update took out of it, and those no field leads to, in signing order. */
async function signaturesToJudge(
  facts: DocumentFacts[],
  finalPdf: PDF,
  listed: PdfSignature[],
  bytes: Uint8Array,
  opts: ReadSignaturesOptions,
  file: { text: string; ends: number[] },
): Promise<ToJudge[]> {
  const vanished = await vanishedSignatures(facts, finalPdf, listed, bytes, opts);
  // A signature dictionary no field of the form leads to is judged all the same: it never leaves
  // a file "intact" by being out of the form's reach.
  const known = new Set([...listed, ...vanished.map((v) => v.signature)].map((s) => s.dictionaryNumber));
  const unlisted = await unlistedSignatures(finalPdf, bytes, known, opts, file);
  return [...[...listed, ...unlisted].map((signature) => ({ signature, pdf: finalPdf, goneAt: null as number | null })), ...vanished].sort(
    (x, y) => x.signature.revision - y.signature.revision || (x.signature.byteRange[2] ?? 0) - (y.signature.byteRange[2] ?? 0),
  );
}

/** What every signature is judged against: the file, its revisions and every change between them. */
interface Judging {
  bytes: Uint8Array;
  ends: number[];
  opts: ReadSignaturesOptions;
  facts: DocumentFacts[];
  finalFacts: DocumentFacts;
  finalDss: ReturnType<typeof readDss>;
  changes: ClassifiedChange[];
  sneaky: Map<string, 'unsigned' | 'untrusted'>;
  certification: DocumentFacts['certification'];
  certSig: PdfSignature | undefined;
  docTimestamps: PdfSignature[];
  /** Filled as signatures are judged. */
  attacks: AttackFinding[];
}

const factsAt = (j: Judging, revision: number) => [...j.facts].reverse().find((f) => f.view.revision <= revision) ?? j.facts[0];

function judgeSignature(j: Judging, { signature: s, pdf, goneAt }: ToJudge): VerifiedSignature {
  const raw = rawValues(pdf, s);
  const structure = checkSignatureStructure({ bytes: j.bytes, ...raw, objectNumber: s.dictionaryNumber, revisionEnds: j.ends });
  const validSignature = s.validSignature && !structure.problem;
  const rule = structure.problem?.rule ?? s.rule ?? null;
  const level3 = j.certification && j.certSig && j.certSig.revision <= s.revision ? j.certification.level : null;
  const after = changesAfter(j, s, pdf, raw.field, goneAt, level3);
  const disallowed = after.filter((c) => !c.allowed);
  const ltv = padesLevel(j, s, validSignature);
  if (rule && !validSignature) {
    const found = structuralAttack(s.fieldName, rule, s.validSignature);
    if (found) {
      j.attacks.push(found);
    }
  } else if (disallowed.length > 0) {
    const signed = factsAt(j, s.revision);
    j.attacks.push(modificationAttack({ field: s.fieldName, signed, final: j.finalFacts, disallowed, certified: level3 !== null }));
  }
  return {
    ...s,
    validSignature,
    problem: structure.problem?.message ?? s.problem,
    failedRule: validSignature ? null : rule,
    warnings: structure.warning ? [structure.warning] : [],
    modifiedAfterSigning: disallowed.length > 0,
    changes: [...disallowed, ...after.filter((c) => c.allowed)]
      .slice(0, MAX_CHANGES)
      .sort((x, y) => x.revision - y.revision || x.objectNumber - y.objectNumber),
    ...ltv,
  };
}

/** Every change after signature `s`, as it sees them, and whether it allows each. */
function changesAfter(
  j: Judging,
  s: PdfSignature,
  pdf: PDF,
  field: PdfDict | null,
  goneAt: number | null,
  level3: number | null,
): (ClassifiedChange & { allowed: boolean })[] {
  const locks = fieldLocks(pdf, field, s.dictionaryNumber);
  const allowed = (c: ClassifiedChange) =>
    ALWAYS_ALLOWED.has(c.category) ||
    (c.category === 'signature' && level3 !== 1) ||
    (c.category === 'form-fill' && level3 !== 1 && !isLocked(locks, c.field ?? '')) ||
    (c.category === 'annotation' && level3 === 3);
  // A signature an update took out of the form: whatever else that update did, it hid this one.
  const removal: ClassifiedChange[] =
    goneAt === null
      ? []
      : [
          {
            revision: goneAt,
            objectNumber: s.dictionaryNumber ?? 0,
            kind: 'removed',
            category: 'other',
            description: `signature ${s.fieldName} taken out of the form: the document as it ends no longer shows it`,
            field: s.fieldName,
          },
        ];
  return [...removal, ...j.changes]
    .filter((c) => c.revision > s.revision)
    .map((c) => asSeenBy(j.sneaky, s, c))
    .map((c) => ({ ...c, allowed: allowed(c) }));
}

/** A signature change is a sneaky signature for `s` when its field draws without a signature `s` can weigh against. */
function asSeenBy(sneaky: Map<string, 'unsigned' | 'untrusted'>, s: PdfSignature, c: ClassifiedChange): ClassifiedChange {
  const kind = c.category === 'signature' && c.field !== undefined ? sneaky.get(c.field) : undefined;
  if (kind === 'unsigned' || (kind === 'untrusted' && s.trusted)) {
    const why = kind === 'unsigned' ? 'without a valid signature' : 'with a signature no trusted authority vouches for';
    return { ...c, category: 'other', description: `sneaky signature: ${c.description}, drawn on the page ${why}` };
  }
  return c;
}

/** The PAdES level reached: B-T with a verified time stamp, B-LT with the chain's data in the DSS, B-LTA under a later document time stamp. */
function padesLevel(
  j: Judging,
  s: PdfSignature,
  validSignature: boolean,
): Pick<VerifiedSignature, 'level' | 'timestampValid' | 'ltvEmbedded'> {
  const roots = j.opts.trustedRootsDer;
  const timestampRoots = j.opts.timestampRootsDer ?? roots;
  const timestampValid = s.subFilter === 'ETSI.RFC3161' ? validSignature && s.trusted : !!s.timestamp?.verified;
  const signerDer = s.signer?.der;
  const at = s.timestamp?.genTime ?? s.signDate ?? new Date(0);
  const covers = (dss: ReturnType<typeof readDss>) =>
    !!signerDer &&
    dssCoversChain({
      signerDer,
      cmsCertsDer: s.certificates.map((c) => c.der),
      dss,
      trustedRootsDer: s.subFilter === 'ETSI.RFC3161' ? timestampRoots : roots,
      at,
    });
  const ltvEmbedded = timestampValid && covers(j.finalDss);
  const archived =
    ltvEmbedded && j.docTimestamps.some((d) => d.revision > s.revision && d !== s && covers(readDss(factsAt(j, d.revision).view.pdf)));
  const level: PadesLevel = archived ? 'B-LTA' : ltvEmbedded ? 'B-LT' : timestampValid ? 'B-T' : 'B-B';
  return { level, timestampValid, ltvEmbedded };
}
