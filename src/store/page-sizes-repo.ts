// SQL for the page sizes of stored PDFs (pdf_page_sizes), keyed by the blob's SHA-256.
import type { Db } from './db.js';

/** One page as the signer pages show it: the visible area in points and the rotation. */
export interface StoredPageSize {
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
}

export async function findPageSizes(db: Db, sha256: string): Promise<StoredPageSize[] | undefined> {
  const row = await db.selectFrom('pdf_page_sizes').select('pages').where('sha256', '=', sha256).executeTakeFirst();
  return row ? (row.pages as StoredPageSize[]) : undefined;
}

/** Kept once: two first opens at the same time compute the same sizes, and the second insert is a no-op. */
export async function savePageSizes(db: Db, sha256: string, pages: StoredPageSize[]): Promise<void> {
  await db
    .insertInto('pdf_page_sizes')
    .values({ sha256, pages: JSON.stringify(pages) })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .execute();
}
