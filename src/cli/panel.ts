// `sello panel invite | sessions end`: the operator's side of the account panel, on the data
// directory's database whether or not the service is running (like `sello account`). The
// invitation's email goes through the outbox: the running service's workers send it, or it waits
// in the outbox (`sello mail list`) until a service runs.
import type { Deps } from '../domain/deps.js';
import { invitePanelUser } from '../domain/panel/invite-panel-user.js';
import { panelEmail } from '../domain/panel/panel-email.js';
import { SIGN_IN_LINK_MINUTES } from '../domain/panel/panel-settings.js';
import { endPanelSessions } from '../domain/panel/end-panel-sessions.js';
import { UsageError, flags, required } from './args.js';

const USAGE = 'usage: sello panel invite --web-id ID --email EMAIL [--language es|en] | sessions end --email EMAIL [--web-id ID]  [--json]';

export type PanelCommand =
  /** `language`: the email's; without --language, the operator's default (SELLO_DEFAULT_LANGUAGE). */
  | { kind: 'invite'; webId: string; email: string; language?: 'es' | 'en'; json: boolean }
  | { kind: 'end-sessions'; email: string; webId?: string; json: boolean };

export function parsePanelCommand(argv: string[]): PanelCommand {
  const [sub, ...rest] = argv;
  if (sub === 'invite') {
    const { values } = flags(rest, { 'web-id': 'string', email: 'string', language: 'string', json: 'boolean' });
    const language = values.language;
    if (language !== undefined && language !== 'es' && language !== 'en') {
      throw new UsageError('sello panel invite: --language takes es or en');
    }
    return {
      kind: 'invite',
      webId: required(values, 'web-id'),
      email: checkedEmail(required(values, 'email')),
      language,
      json: values.json === true,
    };
  }
  if (sub === 'sessions' && rest[0] === 'end') {
    const { values } = flags(rest.slice(1), { 'web-id': 'string', email: 'string', json: 'boolean' });
    const webId = typeof values['web-id'] === 'string' ? values['web-id'] : undefined;
    return { kind: 'end-sessions', email: checkedEmail(required(values, 'email')), webId, json: values.json === true };
  }
  throw new UsageError(USAGE);
}

function checkedEmail(v: string): string {
  try {
    return panelEmail(v);
  } catch {
    throw new UsageError(`--email: ${JSON.stringify(v)} is not an email address`);
  }
}

export async function runPanelCommand(deps: Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>, cmd: PanelCommand): Promise<void> {
  if (cmd.kind === 'invite') {
    const language = cmd.language ?? deps.config.defaultLanguage;
    const r = await invitePanelUser(deps, { webId: cmd.webId, email: cmd.email, language });
    const out = { ...r, link_minutes: SIGN_IN_LINK_MINUTES };
    console.log(
      cmd.json
        ? JSON.stringify(out)
        : `${r.email} may sign in to the panel of ${r.webId}; a sign-in link was emailed (valid ${SIGN_IN_LINK_MINUTES} minutes, once).\n` +
            `Later links: ${deps.config.publicUrl}/panel/sign-in`,
    );
    return;
  }
  const ended = await endPanelSessions(deps, { email: cmd.email, webId: cmd.webId });
  console.log(cmd.json ? JSON.stringify({ email: cmd.email, ended }) : `${ended} session(s) of ${cmd.email} ended`);
}
