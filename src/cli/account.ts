// `sello account create | rotate-key | list | webhook | update | package`: operator commands on the data directory's
// database, whether or not the service is running. The arguments are checked before the database
// is opened, so a typo answers at once.
import { readFileSync } from 'node:fs';
import type { Deps } from '../domain/deps.js';
import { createAccount } from '../domain/accounts/create-account.js';
import { rotateKey } from '../domain/accounts/rotate-key.js';
import { setAccountWebhook } from '../domain/accounts/set-webhook.js';
import { listAccounts } from '../domain/accounts/list-accounts.js';
import { type AccountUpdate, checkAccountUpdate, updateAccount } from '../domain/accounts/update-account.js';
import type { BrandChange } from '../domain/accounts/account-brand.js';
import { AppError } from '../domain/errors.js';
import { UsageError, flags, required } from './args.js';
import { parsePackageCommand, runPackageCommand, type PackageCommand } from './account-package.js';

const USAGE =
  'usage: sello account create --name NAME | rotate-key --web-id ID | webhook --web-id ID --url URL | ' +
  'update --web-id ID [--name NAME] [--logo FILE.png | --no-logo] [--nom151 on|off] [--identity-retries N] [--identity-decision manual|automatic] [--signer-key rsa-2048|ecdsa-p256|default] [--frame-origins ORIGIN,...] [--brand-name NAME] [--brand-colour #RRGGBB] [--email-sender-name NAME] [--email-reply-to ADDRESS] [--hide-sello on|off] (an empty value clears) | list | package add|list|end ...  [--json]';

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
      signerKey?: AccountUpdate['signerKey'];
      brand: BrandChange;
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
    case 'update':
      return parseUpdate(rest);
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

/**
 * `account update`: the flags read into the update, then checked by the use case's own rules
 * (checkAccountUpdate) before the database is opened, its errors named by the flag.
 */
function parseUpdate(argv: string[]): AccountCommand {
  const { values } = flags(argv, {
    'web-id': 'string',
    name: 'string',
    logo: 'string',
    'no-logo': 'boolean',
    nom151: 'string',
    'identity-retries': 'string',
    'identity-decision': 'string',
    'signer-key': 'string',
    'frame-origins': 'string',
    'brand-name': 'string',
    'brand-colour': 'string',
    'email-sender-name': 'string',
    'email-reply-to': 'string',
    'hide-sello': 'string',
    json: 'boolean',
  });
  const text = (flag: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : undefined);
  const [nom151, retries, logoPath] = [text('nom151'), text('identity-retries'), text('logo')];
  if (nom151 !== undefined && nom151 !== 'on' && nom151 !== 'off') {
    throw new UsageError('sello account update: --nom151 takes on or off');
  }
  const hide = text('hide-sello');
  if (hide !== undefined && hide !== 'on' && hide !== 'off') {
    throw new UsageError('sello account update: --hide-sello takes on or off');
  }
  // An empty value clears the setting.
  const clearable = (flag: string) => {
    const v = text(flag);
    return v === undefined ? undefined : v.trim() === '' ? null : v;
  };
  const origins = text('frame-origins');
  const brand: BrandChange = {
    frameOrigins:
      origins === undefined
        ? undefined
        : origins
            .split(',')
            .map((o) => o.trim())
            .filter(Boolean),
    brandName: clearable('brand-name'),
    brandColour: clearable('brand-colour'),
    emailSenderName: clearable('email-sender-name'),
    emailReplyTo: clearable('email-reply-to'),
    hideSello: hide === undefined ? undefined : hide === 'on',
  };
  if (logoPath !== undefined && values['no-logo'] === true) {
    throw new UsageError('sello account update: --logo and --no-logo exclude each other');
  }
  const update: Omit<AccountUpdate, 'webId'> = {
    name: text('name'),
    logoPng: logoPath === undefined ? (values['no-logo'] === true ? null : undefined) : readLogo(logoPath),
    nom151Default: nom151 === undefined ? undefined : nom151 === 'on',
    // Digits only: Number('') and Number('0x3') are numbers too. Anything else is NaN, which the check refuses.
    identityRetries: retries === undefined ? undefined : /^\d+$/.test(retries) ? Number(retries) : Number.NaN,
    // checkAccountUpdate refuses any other word, naming --identity-decision.
    identityDecision: text('identity-decision') as AccountUpdate['identityDecision'],
    // Likewise, naming --signer-key.
    signerKey: text('signer-key') as AccountUpdate['signerKey'],
    ...brand,
  };
  try {
    checkAccountUpdate(update);
  } catch (err) {
    if (err instanceof AppError && err.code === 'INVALID_INPUT') {
      // The brand's fields are named as the API names them (brand_colour, frame_origins[1]): as flags here.
      const message = err.message.replace(/^(\w+)(\[\d+\])?:/, (_m, field: string, index = '') => `${field.replaceAll('_', '-')}${index}:`);
      throw new UsageError(`sello account update: --${message}`);
    }
    throw err;
  }
  return { kind: 'update', webId: required(values, 'web-id'), ...update, brand, json: values.json === true };
}

function readLogo(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UsageError(`sello account update: cannot read ${path}: ${(err as Error).message}`);
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
        signerKey: cmd.signerKey,
        ...cmd.brand,
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
          ...(r.brand ? brandLines(r.brand) : []),
          ...(r.signerKey !== undefined
            ? [
                `signer key: ${r.signerKey}${r.signerKey === 'default' ? " (the operator's SELLO_SIGNER_KEY)" : ''} (from the next signature)`,
              ]
            : []),
        ].join('\n'),
      );
      return;
    }
    case 'list': {
      const out = (await listAccounts(deps)).map((a) => ({ ...a, createdAt: a.createdAt.toISOString() }));
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

/** What `account update` changed of the brand, one setting a line ("-" for cleared). */
function brandLines(b: BrandChange): string[] {
  const show = (v: string | null | undefined) => (v === null ? '-' : v);
  return [
    ...(b.frameOrigins !== undefined ? [`frame origins: ${b.frameOrigins.join(', ') || '- (no site may frame the signer pages)'}`] : []),
    ...(b.brandName !== undefined ? [`brand name: ${show(b.brandName)}`] : []),
    ...(b.brandColour !== undefined ? [`brand colour: ${show(b.brandColour)}`] : []),
    ...(b.emailSenderName !== undefined ? [`email sender name: ${show(b.emailSenderName)}`] : []),
    ...(b.emailReplyTo !== undefined ? [`email reply-to: ${show(b.emailReplyTo)}`] : []),
    ...(b.hideSello !== undefined ? [`hide Sello: ${b.hideSello ? 'on' : 'off'}`] : []),
  ];
}

function print(json: boolean, value: object, text: string) {
  console.log(json ? JSON.stringify(value) : text);
}
