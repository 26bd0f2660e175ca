// What happened to a PDF after one of its stamps: the revisions that follow the one the stamp
// closes, and whether they only add what leaves the stamped content as it was (signatures,
// validation data in the DSS, further document time stamps). One function, so that a full
// difference analysis can take its place without changing the validation around it.
import type { RevisionChange } from '../../pdf/revision-changes.js';

export interface ChangesAfter {
  /** Some revision was appended after the stamped one. */
  changed: boolean;
  /** Every later revision only adds signatures, DSS or document time stamps. */
  only_signatures_dss_timestamps: boolean;
  revisions: {
    revision: number;
    signatures: string[];
    document_timestamps: string[];
    dss: boolean;
    other: string[];
  }[];
}

export function changesAfter(stampRevision: number, totalRevisions: number, revisions: RevisionChange[]): ChangesAfter {
  const later = revisions.filter((r) => r.revision > stampRevision);
  return {
    changed: totalRevisions > stampRevision,
    only_signatures_dss_timestamps: later.every((r) => r.other.length === 0),
    revisions: later.map((r) => ({
      revision: r.revision,
      signatures: r.signatures,
      document_timestamps: r.documentTimestamps,
      dss: r.dss,
      other: r.other,
    })),
  };
}
