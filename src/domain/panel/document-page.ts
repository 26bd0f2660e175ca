// The panel's page of one document: the listing's view of it, its history (with the chain's check),
// what the page's actions need to know of its flow, and the history's actors in words.
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findListedDocument } from '../documents/list-documents.js';
import { getHistory } from '../history/get-history.js';
import { historyPeople } from '../history/history-people.js';
import type { PanelDocumentPage } from '../../schemas/panel.js';
import { findFlowDocument } from '../../store/workflow-repo.js';

export async function panelDocumentPage(
  deps: Pick<Deps, 'db' | 'clock'>,
  o: { accountId: string; ticket: string },
): Promise<PanelDocumentPage> {
  const document = await findListedDocument(deps, o);
  const history = await getHistory(deps, o);
  const flow = await findFlowDocument(deps.db, o);
  if (!flow) {
    // Deleted between the reads above: the same answer as a document never there.
    throw new AppError('DOCUMENT_NOT_FOUND', `no document ${o.ticket}`);
  }
  return {
    document,
    history,
    // Whether the service runs the flow, and until when; the account's time zone, the one an
    // expiration date is the end of a day in.
    workflow: {
      started: flow.flow_started_at !== null,
      in_set: flow.set_id !== null,
      expires_at: flow.expires_at?.toISOString() ?? null,
      time_zone: flow.time_zone,
    },
    // The timeline names signers as the history PDF does, not by their ids.
    people: Object.fromEntries(await historyPeople(deps.db, flow.id)),
  };
}
