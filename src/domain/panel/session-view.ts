// What the panel's page learns of its session: who is signed in, to which account, the CSRF token
// its changes carry, and when the session ends (GET /panel/api/session).
import type { Deps } from '../deps.js';
import type { PanelSessionView } from '../../schemas/panel.js';
import { accountTimeZone } from '../../store/workflow-repo.js';
import type { PanelSession } from './panel-sessions.js';

export async function panelSessionView(deps: Pick<Deps, 'db'>, s: PanelSession): Promise<PanelSessionView> {
  return {
    email: s.email,
    // The account's time zone: the panel shows times in it, as the history PDF does, and an
    // expiration date is the end of a day there.
    account: { web_id: s.web_id, name: s.account_name, time_zone: await accountTimeZone(deps.db, s.account_id) },
    csrf_token: s.csrf_token,
    expires_at: s.expires_at.toISOString(),
    idle_expires_at: s.idle_expires_at.toISOString(),
  };
}
