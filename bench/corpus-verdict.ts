// The verdict a signature report reaches on one file, in the words of a corpus manifest whose
// expected verdicts come from the upstream projects' own test assertions (bench/verify-corpus.ts).
//
//   invalid                 a signature cannot be accepted: its CMS is missing, undecodable or does
//                           not verify, no signer certificate, a broken or foreign ByteRange
//                           (report: `validSignature` false, or `documentIntegrity` "invalid")
//   modified-after-signing  every signature verifies over its range, but a later revision changes
//                           what that signature does not allow (`modifiedAfterSigning`, or
//                           `documentIntegrity` "modified")
//   valid                   intact, or only allowed changes after signing
//
// The worst signature decides, and the document-level answer counts as well, so a report whose
// top line and signatures disagree is judged by the worse of the two. Trust is not part of the
// verdict: the corpora are signed by their projects' test authorities, which this service does not
// trust, and the upstream tests assert integrity, not trust.
//
// Two answers are verdicts of their own: `unsigned` (the report finds no signature at all, which
// is right for no file of a signature corpus: a control whose signature vanished is not "valid",
// an attack whose signature vanished is not flagged), and `refused` (422: the service will not read
// the file), which a reader gets instead of any acceptance, so it counts as right where `invalid`
// is expected and wrong everywhere else. Any other failure (a 5xx, 413, the network) is `error`.
import type { SignatureReport } from '../src/client/index.js';

export const EXPECTED = ['invalid', 'modified-after-signing', 'valid'] as const;
export type Expected = (typeof EXPECTED)[number];
export type Verdict = Expected | 'unsigned' | 'refused' | 'error';

export interface Judgement {
  verdict: Verdict;
  /** Why, in the report's own words: the broken rule, the disallowed changes, the attacks named. */
  reason: string;
}

const MAX_CHANGES_QUOTED = 3;

export function judgeReport(report: SignatureReport): Judgement {
  const attacks = report.attacks.map((a) => `${a.name} (${a.campoFirma}: ${a.detail})`);
  const withAttacks = (text: string) => (attacks.length ? `${text}; attacks: ${attacks.join('; ')}` : text);
  if (report.firmas.length === 0) {
    return { verdict: 'unsigned', reason: withAttacks(`no signature found (documentIntegrity ${report.documentIntegrity})`) };
  }
  const broken = report.firmas.filter((f) => !f.validSignature);
  if (broken.length > 0 || report.documentIntegrity === 'invalid') {
    const why = broken.map((f) => `${f.campoFirma}: ${f.problem ? `${f.problem.rule}: ${f.problem.message}` : 'no problem given'}`);
    return {
      verdict: 'invalid',
      reason: withAttacks(why.length ? why.join(' | ') : 'documentIntegrity invalid with every signature valid'),
    };
  }
  const modified = report.firmas.filter((f) => f.modifiedAfterSigning);
  if (modified.length > 0 || report.documentIntegrity === 'modified') {
    const why = modified.map((f) => {
      const refused = f.changes.filter((c) => !c.allowed);
      const quoted = refused
        .slice(0, MAX_CHANGES_QUOTED)
        .map((c) => `rev ${c.revision} obj ${c.object} ${c.kind} ${c.category}: ${c.description}`);
      const more = refused.length > MAX_CHANGES_QUOTED ? ` (+${refused.length - MAX_CHANGES_QUOTED} more)` : '';
      return `${f.campoFirma}: ${quoted.join('; ') || 'no disallowed change listed'}${more}`;
    });
    return {
      verdict: 'modified-after-signing',
      reason: withAttacks(why.length ? why.join(' | ') : 'documentIntegrity modified with no signature modified'),
    };
  }
  return { verdict: 'valid', reason: withAttacks(`${report.firmas.length} signature(s) valid, document ${report.documentIntegrity}`) };
}

/** Whether `got` is right for a file expected `expect` (or one of `alsoAccepted`). */
export function isRight(got: Verdict, expect: Expected, alsoAccepted: readonly Expected[] = []): boolean {
  if (got === 'refused') {
    return expect === 'invalid' || alsoAccepted.includes('invalid');
  }
  return got === expect || (alsoAccepted as readonly Verdict[]).includes(got);
}

/** Whether an attack file was flagged at all: any verdict that does not accept it. */
export function isFlagged(got: Verdict): boolean {
  return got === 'invalid' || got === 'modified-after-signing' || got === 'refused';
}
