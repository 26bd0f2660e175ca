// SQL for the signature report: a document's signers with how they signed, and their boxes.
import { type Selectable, sql } from 'kysely';
import type { Db } from './db.js';
import type { SignersTable } from './schema.js';

/** certificate_status: an e.firma's revocation status as the SAT's responder answered at signing time (good, unknown). */
export type ReportSigner = Pick<
  Selectable<SignersTable>,
  | 'id'
  | 'signer_id'
  | 'authority'
  | 'data'
  | 'name'
  | 'email'
  | 'status'
  | 'signature_type'
  | 'certificate_status'
  | 'certificate_serial'
  | 'action_ip'
> & {
  /**
   * The approved identity review of a signer asked to verify their identity; null otherwise. A set
   * signer's one review proves them on each of their documents of the set.
   */
  identity_review: { review_id: string; verified_at: string; provider: string } | null;
  /** CSC: the provider whose credential made the signature; null otherwise. */
  csc_provider: string | null;
  boxes: { sticker_index: number; page: number; lx: number; ly: number; tx: number; ty: number }[];
};

/** The signers of a document in sticker order, each with its boxes in sticker order. */
export async function reportSigners(db: Db, documentId: string): Promise<ReportSigner[]> {
  // Each signer with a json_build_object and a json_agg subquery: plainer in SQL than in the builder.
  const r = await sql<ReportSigner>`
    select s.id::text as id, s.signer_id, s.authority, s.data, s.name, s.email, s.status, s.signature_type,
           s.certificate_serial, s.action_ip, s.certificate_status,
           (select p.csc_provider from sat_preparations p where p.signer_row_id = s.id and p.finished_at is not null
             order by p.finished_at desc limit 1) as csc_provider,
           (select json_build_object('review_id', r.id::text, 'verified_at', r.decided_at, 'provider', r.provider) from identity_reviews r
             where (r.signer_row_id = s.id or (r.set_signer_id = s.set_signer_id and s.identity_status is not null))
               and r.status = 'approved' order by r.decided_at desc limit 1) as identity_review,
           coalesce((select json_agg(json_build_object('sticker_index', k.sticker_index, 'page', k.page,
                       'lx', k.lx, 'ly', k.ly, 'tx', k.tx, 'ty', k.ty) order by k.sticker_index)
                     from stickers k where k.signer_row_id = s.id), '[]'::json) as boxes
    from signers s where s.document_id = ${documentId} order by s.position`.execute(db);
  return r.rows;
}
