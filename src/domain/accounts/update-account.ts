// `sello account update`: what signers see of an account, its display name ("… asks you to sign")
// and its logo on the signer page, and how its documents are signed (NOM-151 by default, identity
// checks, the key type of its signer certificates). The logo travels to every signer page as a
// data: URL (the page's CSP allows images from data: only), so it is bounded in bytes and in pixels.
import { AppError, invalid } from '../errors.js';
import type { Deps } from '../deps.js';
import { type BrandChange, checkBrandChange, checkLogo, hasBrandChange } from './account-brand.js';
import {
  setAccountBrand,
  setAccountIdentityDecision,
  setAccountIdentityRetries,
  setAccountSignerKey,
  updateAccountProfile,
} from '../../store/accounts-repo.js';
import { setAccountNom151Default } from '../../store/stamps-repo.js';

export { MAX_LOGO_BYTES, checkLogo } from './account-brand.js';

/**
 * What `--signer-key` takes: a key type, or `default` (the operator's SELLO_SIGNER_KEY). RSA-2048 is
 * accepted by every validator; ECDSA P-256 costs a thousandth of the CPU to make but iText 5 refuses
 * it (docs/performance.md, "Signer keys: the decision").
 */
export const SIGNER_KEY_CHOICES = ['rsa-2048', 'ecdsa-p256', 'default'] as const;
export type SignerKeyChoice = (typeof SIGNER_KEY_CHOICES)[number];

/** The account's settings an update may carry; the brand and embedding fields are account-brand.ts's. */
export interface AccountUpdate extends BrandChange {
  webId: string;
  name?: string;
  /** PNG bytes, or null to remove the logo. */
  logoPng?: Buffer | null;
  /** Whether documents created without `nom151` in their payload are stamped on completion (NOM-151). */
  nom151Default?: boolean;
  /** How many more attempts a signer whose identity verification was rejected may make (0 to 5). */
  identityRetries?: number;
  /**
   * Who decides an identity review whose built-in checks all passed: `manual` (a person, always; the
   * default) or `automatic` (approved by the checks; any other review still waits for a person).
   */
  identityDecision?: 'manual' | 'automatic';
  /** The key type of the account's signer certificates, or `default`: the operator's, whatever it becomes. */
  signerKey?: SignerKeyChoice;
}

export async function updateAccount(
  deps: Pick<Deps, 'db'>,
  opts: AccountUpdate,
): Promise<{
  webId: string;
  name?: string;
  logo?: string;
  nom151?: 'on' | 'off';
  identityRetries?: number;
  identityDecision?: 'manual' | 'automatic';
  signerKey?: SignerKeyChoice;
  brand?: BrandChange;
}> {
  const change = checkAccountUpdate(opts);
  const brand = change.brand;
  const profile = change.name !== undefined || change.logoPng !== undefined;
  const found = await deps.db.transaction().execute(async (trx) => {
    if (profile && !(await updateAccountProfile(trx, opts.webId, change))) {
      return false;
    }
    if (opts.identityRetries !== undefined && !(await setAccountIdentityRetries(trx, opts.webId, opts.identityRetries))) {
      return false;
    }
    if (opts.identityDecision !== undefined && !(await setAccountIdentityDecision(trx, opts.webId, opts.identityDecision))) {
      return false;
    }
    if (
      opts.signerKey !== undefined &&
      !(await setAccountSignerKey(trx, opts.webId, opts.signerKey === 'default' ? null : opts.signerKey))
    ) {
      return false;
    }
    if (hasBrandChange(brand) && !(await setAccountBrand(trx, { webId: opts.webId }, brand))) {
      return false;
    }
    return opts.nom151Default === undefined || setAccountNom151Default(trx, opts.webId, opts.nom151Default);
  });
  if (!found) {
    throw new AppError('ACCOUNT_NOT_FOUND', `no account with web id ${opts.webId}`);
  }
  return {
    webId: opts.webId,
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.logoPng !== undefined ? { logo: change.logoPng ? `${change.logoPng.length} bytes` : 'removed' } : {}),
    ...(opts.nom151Default !== undefined ? { nom151: opts.nom151Default ? ('on' as const) : ('off' as const) } : {}),
    ...(opts.identityRetries !== undefined ? { identityRetries: opts.identityRetries } : {}),
    ...(opts.identityDecision !== undefined ? { identityDecision: opts.identityDecision } : {}),
    ...(opts.signerKey !== undefined ? { signerKey: opts.signerKey } : {}),
    ...(hasBrandChange(brand) ? { brand } : {}),
  };
}

/**
 * The update's own checks, before anything is read or written (the CLI runs them on its flags
 * before it opens the database): the name trimmed and the logo checked, or INVALID_INPUT naming
 * the field.
 */
export function checkAccountUpdate(opts: Omit<AccountUpdate, 'webId'>): { name?: string; logoPng?: Buffer | null; brand: BrandChange } {
  const brand = checkBrandChange(opts);
  const change: { name?: string; logoPng?: Buffer | null; brand: BrandChange } = { brand };
  if (opts.name !== undefined) {
    const name = opts.name.trim();
    if (!name || name.length > 200) {
      throw invalid('name', 'expected 1 to 200 characters');
    }
    change.name = name;
  }
  if (opts.logoPng !== undefined) {
    change.logoPng = opts.logoPng === null ? null : checkLogo(opts.logoPng);
  }
  if (
    opts.identityRetries !== undefined &&
    (!Number.isInteger(opts.identityRetries) || opts.identityRetries < 0 || opts.identityRetries > 5)
  ) {
    throw invalid('identity-retries', 'expected a whole number from 0 to 5');
  }
  if (opts.identityDecision !== undefined && opts.identityDecision !== 'manual' && opts.identityDecision !== 'automatic') {
    throw invalid('identity-decision', 'expected manual or automatic');
  }
  if (opts.signerKey !== undefined && !(SIGNER_KEY_CHOICES as readonly string[]).includes(opts.signerKey)) {
    throw invalid('signer-key', `expected ${SIGNER_KEY_CHOICES.join(', ')}`);
  }
  if (
    change.name === undefined &&
    change.logoPng === undefined &&
    opts.nom151Default === undefined &&
    opts.identityRetries === undefined &&
    opts.identityDecision === undefined &&
    opts.signerKey === undefined &&
    !hasBrandChange(brand)
  ) {
    throw invalid(
      'name',
      'nothing to change: give a name, a logo, the NOM-151 default, the identity retries, the identity decision, the signer key, a brand setting or the frame origins',
    );
  }
  return change;
}
