// `sello account create | rotate-key | list | webhook | update | package`: operator commands on the data directory's
// database, whether or not the service is running. The arguments are checked before the database
// is opened, so a typo answers at once.
import { readFileSync } from 'node:fs';
import type { Deps } from '../domain/deps.js';
import { createAccount } from '../domain/accounts/create-account.js';
import { rotateKey } from '../domain/accounts/rotate-key.js';
import { setAccountWebhook } from '../domain/accounts/set-webhook.js';
import { updateAccount } from '../domain/accounts/update-account.js';
import { listAccounts } from '../store/accounts-repo.js';
import { UsageError, flags, required } from './args.js';
import { parsePackageCommand, runPackageCommand, type PackageCommand } from './account-package.js';

const USAGE =
  'usage: sello account create --name NAME | rotate-key --web-id ID | webhook --web-id ID --url URL | ' +
  'update --web-id ID [--name NAME] [--logo FILE.png | --no-logo] [--nom151 on|off] [--identity-retries N] [--identity-decision manual|automatic] | list | package add|list|end ...  [--json]';

export type AccountCommand =
  | { kind: 'create'; name: string; json: boolean }
  | { kind: 'rotate-key'; webId: string; json: boolean }
  | { kind: 'webhook'; webId: string; url: string; json: boolean }
  | {
      kind: 'update';
      webId: string;
      name?: string;
      logoPng?: Buffer | null;
      nom151Default?: boolean;
      identityRetries?: number;
      identityDecision?: 'manual' | 'automatic';
      json: boolean;
    }
  | { kind: 'list'; json: boolean }
  | { kind: 'package'; command: PackageCommand };

export function parseAccountCommand(argv: string[]): AccountCommand {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create': {
      const { values } = flags(rest, { name: 'string', json: 'boolean' });
      return { kind: 'create', name: required(values, 'name'), json: values.json === true };
    }
    case 'rotate-key': {
      const { values } = flags(rest, { 'web-id': 'string', json: 'boolean' });
      return { kind: 'rotate-key', webId: required(values, 'web-id'), json: values.json === true };
    }
    case 'webhook': {
      const { values } = flags(rest, { 'web-id': 'string', url: 'string', json: 'boolean' });
      return { kind: 'webhook', webId: required(values, 'web-id'), url: required(values, 'url'), json: values.json === true };
    }
    case 'update': {
      const { values } = flags(rest, {
        'web-id': 'string',
        name: 'string',
        logo: 'string',
        'no-logo': 'boolean',
        nom151: 'string',
        'identity-retries': 'string',
        'identity-decision': 'string',
        json: 'boolean',
      });
      const name = typeof values.name === 'string' ? values.name : undefined;
      const logoPath = typeof values.logo === 'string' ? values.logo : undefined;
      const nom151 = typeof values.nom151 === 'string' ? values.nom151 : undefined;
      if (nom151 !== undefined && nom151 !== 'on' && nom151 !== 'off') {
        throw new UsageError('sello account update: --nom151 takes on or off');
      }
      const retriesText = typeof values['identity-retries'] === 'string' ? values['identity-retries'] : undefined;
      const identityRetries = retriesText === undefined ? undefined : Number(retriesText);
      if (identityRetries !== undefined && (!/^\d$/.test(retriesText!) || identityRetries > 5)) {
        throw new UsageError('sello account update: --identity-retries takes a whole number from 0 to 5');
      }
      const identityDecision = typeof values['identity-decision'] === 'string' ? values['identity-decision'] : undefined;
      if (identityDecision !== undefined && identityDecision !== 'manual' && identityDecision !== 'automatic') {
        throw new UsageError('sello account update: --identity-decision takes manual or automatic');
      }
      if (
        name === undefined &&
        logoPath === undefined &&
        values['no-logo'] !== true &&
        nom151 === undefined &&
        identityRetries === undefined &&
        identityDecision === undefined
      ) {
        throw new UsageError(
          'sello account update: give --name NAME, --logo FILE.png, --no-logo, --nom151 on|off, --identity-retries N or --identity-decision manual|automatic',
        );
      }
      if (logoPath !== undefined && values['no-logo'] === true) {
        throw new UsageError('sello account update: --logo and --no-logo exclude each other');
      }
      let logoPng: Buffer | null | undefined = values['no-logo'] === true ? null : undefined;
      if (logoPath !== undefined) {
        try {
          logoPng = readFileSync(logoPath);
        } catch (err) {
          throw new UsageError(`sello account update: cannot read ${logoPath}: ${(err as Error).message}`);
        }
      }
      const nom151Default = nom151 === undefined ? undefined : nom151 === 'on';
      return {
        kind: 'update',
        webId: required(values, 'web-id'),
        name,
        logoPng,
        nom151Default,
        identityRetries,
        identityDecision,
        json: values.json === true,
      };
    }
    case 'package':
      return { kind: 'package', command: parsePackageCommand(rest) };
    case 'list': {
      const { values } = flags(rest, { json: 'boolean' });
      return { kind: 'list', json: values.json === true };
    }
    default:
      throw new UsageError(USAGE);
  }
}

export async function runAccountCommand(deps: Pick<Deps, 'db' | 'secrets' | 'clock'>, cmd: AccountCommand): Promise<void> {
  switch (cmd.kind) {
    case 'package':
      return runPackageCommand(deps, cmd.command);
    case 'create': {
      const creds = await createAccount(deps, { name: cmd.name });
      print(cmd.json, creds, `webId:  ${creds.webId}\napiKey: ${creds.apiKey}\n(the API key is not shown again)`);
      return;
    }
    case 'rotate-key': {
      const creds = await rotateKey(deps, { webId: cmd.webId });
      print(
        cmd.json,
        creds,
        `webId:  ${creds.webId}\napiKey: ${creds.apiKey}\nThe previous key still works; the one before it no longer does.`,
      );
      return;
    }
    case 'webhook': {
      const r = await setAccountWebhook(deps, { webId: cmd.webId, url: cmd.url });
      print(cmd.json, r, `url:    ${r.url}\nsecret: ${r.secret}`);
      return;
    }
    case 'update': {
      const r = await updateAccount(deps, {
        webId: cmd.webId,
        name: cmd.name,
        logoPng: cmd.logoPng,
        nom151Default: cmd.nom151Default,
        identityRetries: cmd.identityRetries,
        identityDecision: cmd.identityDecision,
      });
      print(
        cmd.json,
        r,
        [
          `webId:  ${r.webId}`,
          ...(r.name ? [`name:   ${r.name}`] : []),
          ...(r.logo ? [`logo:   ${r.logo}`] : []),
          ...(r.nom151 ? [`nom151: ${r.nom151} (documents created without nom151 in their payload)`] : []),
          ...(r.identityRetries !== undefined
            ? [`identity retries: ${r.identityRetries} (attempts after a rejected identity verification)`]
            : []),
          ...(r.identityDecision !== undefined
            ? [
                `identity decision: ${r.identityDecision} (${r.identityDecision === 'automatic' ? 'approved when every built-in check passes, else a person decides' : 'a person decides every review'})`,
              ]
            : []),
        ].join('\n'),
      );
      return;
    }
    case 'list': {
      const rows = await listAccounts(deps.db);
      const out = rows.map((r) => ({
        webId: r.web_id,
        name: r.name,
        activeKeys: r.active_keys,
        webhookUrl: r.webhook_url,
        createdAt: r.created_at.toISOString(),
      }));
      if (cmd.json) {
        console.log(JSON.stringify(out));
      } else {
        for (const a of out) {
          console.log(`${a.webId}\t${a.name}\tkeys=${a.activeKeys}\twebhook=${a.webhookUrl ?? '-'}\t${a.createdAt}`);
        }
      }
      return;
    }
  }
}

function print(json: boolean, value: object, text: string) {
  console.log(json ? JSON.stringify(value) : text);
}
