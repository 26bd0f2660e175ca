// `sello mail list`: the emails sent or waiting in the outbox, newest first, bodies opened.
import type { Deps } from '../deps.js';
import { listMessages, type OutboxMessage } from '../../store/mail-repo.js';

export async function listMail(deps: Pick<Deps, 'db' | 'secrets'>, o: { limit: number }): Promise<OutboxMessage[]> {
  return listMessages(deps, o.limit);
}
