// The corpus measurement's reading of a signature report: the worst signature decides, a report
// without signatures is no acceptance, and a refusal is right only where invalid is expected.
import { describe, expect, it } from 'vitest';
import { isFlagged, isRight, judgeReport } from '../../bench/corpus-verdict.js';
import type { SignatureReport } from '../../src/client/index.js';

type Firma = SignatureReport['firmas'][number];

function firma(name: string, o: Partial<Firma> = {}): Firma {
  return { campoFirma: name, validSignature: true, problem: null, modifiedAfterSigning: false, changes: [], ...o } as Firma;
}

function report(firmas: Firma[], documentIntegrity: SignatureReport['documentIntegrity'] = 'intact'): SignatureReport {
  return { InkSignatures: [], firmas, documentIntegrity, attacks: [] };
}

const changed = {
  revision: 3,
  object: 12,
  kind: 'changed' as const,
  category: 'other' as const,
  description: 'page content changed',
  allowed: false,
};

describe('judgeReport', () => {
  it('an invalid signature beside a modified one makes the file invalid, with the broken rule as reason', () => {
    const j = judgeReport(
      report(
        [
          firma('A', { modifiedAfterSigning: true, changes: [changed] }),
          firma('B', { validSignature: false, problem: { rule: 'message-digest-mismatch', message: 'changed inside' } }),
        ],
        'invalid',
      ),
    );
    expect(j.verdict).toBe('invalid');
    expect(j.reason).toContain('B: message-digest-mismatch');
  });

  it('a signature modified after signing quotes the disallowed change, not the allowed ones', () => {
    const allowed = { ...changed, object: 40, description: 'DSS added', category: 'dss' as const, allowed: true };
    const j = judgeReport(report([firma('A', { modifiedAfterSigning: true, changes: [allowed, changed] }), firma('B')], 'modified'));
    expect(j.verdict).toBe('modified-after-signing');
    expect(j.reason).toContain('rev 3 obj 12 changed other: page content changed');
    expect(j.reason).not.toContain('DSS added');
  });

  it('the document-level answer counts even when no signature carries it', () => {
    expect(judgeReport(report([firma('A')], 'modified')).verdict).toBe('modified-after-signing');
    expect(judgeReport(report([firma('A')], 'invalid')).verdict).toBe('invalid');
    expect(judgeReport(report([firma('A'), firma('B')])).verdict).toBe('valid');
  });

  it('a report without any signature is unsigned, which is never right and never flags an attack', () => {
    const j = judgeReport(report([]));
    expect(j.verdict).toBe('unsigned');
    expect(isRight(j.verdict, 'valid')).toBe(false);
    expect(isRight(j.verdict, 'invalid')).toBe(false);
    expect(isFlagged(j.verdict)).toBe(false);
  });
});

describe('isRight', () => {
  it('takes the expected verdict or an accepted alternative', () => {
    expect(isRight('invalid', 'modified-after-signing', ['invalid'])).toBe(true);
    expect(isRight('invalid', 'modified-after-signing')).toBe(false);
    expect(isRight('valid', 'invalid', ['modified-after-signing'])).toBe(false);
  });

  it('counts a refusal (422) right only where invalid is expected or accepted', () => {
    expect(isRight('refused', 'invalid')).toBe(true);
    expect(isRight('refused', 'modified-after-signing', ['invalid'])).toBe(true);
    expect(isRight('refused', 'modified-after-signing')).toBe(false);
    expect(isRight('refused', 'valid')).toBe(false);
    expect(isRight('error', 'invalid')).toBe(false);
  });
});
