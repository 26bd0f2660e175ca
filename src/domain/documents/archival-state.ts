// The state of a document's long-term renditions as integrators read it, next to its `status`
// (docs/api.md "Long-term state of a document"): `universal_rendition` (the PAdES B-LTA rendition)
// and `nom151_stamps` (its conservation stamps). A failure that the job runner will not retry any
// more is `failed`; one it will retry is still `pending`, with the reason of the last attempt, so
// a client can tell "wait" from "someone must act" without reading the history.
import type { Deps } from '../deps.js';
import { type ArchivalRow, archivalRows, type StampedRendition } from '../../store/archival-state-repo.js';
import type { ArchivalState, RenditionState } from '../../schemas/documents.js';

export type { ArchivalState };

const completed = (r: ArchivalRow) => r.status === 'completed' || (r.status === 'deleted' && r.status_before_delete === 'completed');

function universalRendition(r: ArchivalRow): RenditionState | null {
  if (r.universal_status === null) {
    // Completed before universal renditions existed: the daily sweep queues its build.
    return completed(r) ? { status: 'pending' } : null;
  }
  return { status: r.universal_status, ...(r.universal_error ? { reason: r.universal_error } : {}) };
}

function stampState(r: ArchivalRow, rendition: StampedRendition, owed: boolean): RenditionState | null {
  if (r.stamped.includes(rendition)) {
    return { status: 'ready' };
  }
  const failure = r.stamp_failures.find((f) => f.subject === rendition);
  if (failure) {
    return { status: failure.attempt >= failure.max_attempts ? 'failed' : 'pending', reason: failure.reason };
  }
  return owed ? { status: 'pending' } : null;
}

export function archivalState(r: ArchivalRow | undefined): ArchivalState {
  if (!r) {
    return { universal_rendition: null, nom151_stamps: null };
  }
  return {
    universal_rendition: universalRendition(r),
    nom151_stamps: r.nom151
      ? {
          original: stampState(r, 'original', completed(r)),
          // The universal rendition is stamped once it exists (after-universal-stored.ts).
          universal: stampState(r, 'universal', r.universal_status === 'ready'),
        }
      : null,
  };
}

/** The archival state of each document, by id. */
export async function archivalStates(deps: Pick<Deps, 'db'>, documentIds: readonly string[]): Promise<Map<string, ArchivalState>> {
  const rows = await archivalRows(deps.db, documentIds);
  return new Map(documentIds.map((id) => [id, archivalState(rows.get(id))]));
}
