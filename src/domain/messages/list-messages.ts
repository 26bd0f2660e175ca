// `sello messages list`: the SMS and WhatsApp messages sent or waiting in the outbox, newest
// first, texts opened.
import type { Deps } from '../deps.js';
import { type ChannelMessageText, listChannelMessages } from '../../store/channel-messages-repo.js';

export async function listTextMessages(deps: Pick<Deps, 'db' | 'secrets'>, o: { limit: number }): Promise<ChannelMessageText[]> {
  return listChannelMessages(deps, o.limit);
}
