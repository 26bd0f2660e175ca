// `sello account create | rotate-key | list | webhook`: operator commands on the data directory's
// database, whether or not the service is running.
import type { Deps } from '../domain/deps.js';
import { createAccount } from '../domain/accounts/create-account.js';
import { rotateKey } from '../domain/accounts/rotate-key.js';
import { setAccountWebhook } from '../domain/accounts/set-webhook.js';
import { listAccounts } from '../store/accounts-repo.js';
import { UsageError, flags, required } from './args.js';

export async function account(deps: Deps, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create': {
      const { values } = flags(rest, { name: 'string', json: 'boolean' });
      const creds = await createAccount(deps, { name: required(values, 'name') });
      print(values.json === true, creds, `webId:  ${creds.webId}\napiKey: ${creds.apiKey}\n(the API key is not shown again)`);
      return;
    }
    case 'rotate-key': {
      const { values } = flags(rest, { 'web-id': 'string', json: 'boolean' });
      const creds = await rotateKey(deps, { webId: required(values, 'web-id') });
      print(
        values.json === true,
        creds,
        `webId:  ${creds.webId}\napiKey: ${creds.apiKey}\nThe previous key still works; the one before it no longer does.`,
      );
      return;
    }
    case 'webhook': {
      const { values } = flags(rest, { 'web-id': 'string', url: 'string', json: 'boolean' });
      const r = await setAccountWebhook(deps, { webId: required(values, 'web-id'), url: required(values, 'url') });
      print(values.json === true, r, `url:    ${r.url}\nsecret: ${r.secret}`);
      return;
    }
    case 'list': {
      const { values } = flags(rest, { json: 'boolean' });
      const rows = await listAccounts(deps.db);
      const out = rows.map((r) => ({
        webId: r.web_id,
        name: r.name,
        activeKeys: r.active_keys,
        webhookUrl: r.webhook_url,
        createdAt: r.created_at.toISOString(),
      }));
      if (values.json === true) {
        console.log(JSON.stringify(out));
      } else {
        for (const a of out) {
          console.log(`${a.webId}\t${a.name}\tkeys=${a.activeKeys}\twebhook=${a.webhookUrl ?? '-'}\t${a.createdAt}`);
        }
      }
      return;
    }
    default:
      throw new UsageError('usage: sello account create --name NAME | rotate-key --web-id ID | webhook --web-id ID --url URL | list  [--json]');
  }
}

function print(json: boolean, value: object, text: string) {
  console.log(json ? JSON.stringify(value) : text);
}
