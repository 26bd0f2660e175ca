// The account's brand and embedding settings as the account API and the panel read and change them
// (GET and POST /api/account/brand, /panel/api/brand): the same checks as `sello account update`.
import type { Deps } from '../deps.js';
import { decodeBase64 } from '../base64.js';
import { AppError } from '../errors.js';
import type { AccountBrand, AccountBrandUpdate } from '../../schemas/brand.js';
import { senderOf, setAccountBrand } from '../../store/accounts-repo.js';
import { checkBrandChange, hasBrandChange } from './account-brand.js';
import { MAX_LOGO_BYTES, checkLogo } from './update-account.js';

export async function getAccountBrand(deps: Pick<Deps, 'db'>, opts: { accountId: string }): Promise<AccountBrand> {
  const a = await senderOf(deps.db, opts.accountId);
  if (!a) {
    throw new AppError('ACCOUNT_NOT_FOUND', 'no such account');
  }
  return {
    frame_origins: a.frame_origins,
    brand_name: a.brand_name,
    brand_colour: a.brand_colour,
    email_sender_name: a.email_sender_name,
    email_reply_to: a.email_reply_to,
    hide_sello: a.hide_sello,
    logo: a.logo_png ? `data:image/png;base64,${a.logo_png.toString('base64')}` : null,
  };
}

/** Checks every field first (400 naming the first bad one, nothing written), then writes them together. */
export async function updateAccountBrand(
  deps: Pick<Deps, 'db'>,
  opts: { accountId: string; body: AccountBrandUpdate },
): Promise<AccountBrand> {
  const b = opts.body;
  const change = checkBrandChange({
    frameOrigins: b.frame_origins,
    brandName: b.brand_name,
    brandColour: b.brand_colour,
    emailSenderName: b.email_sender_name,
    emailReplyTo: b.email_reply_to,
    hideSello: b.hide_sello,
  });
  const logoPng =
    b.logo === undefined
      ? undefined
      : b.logo === null
        ? null
        : checkLogo(decodeBase64(b.logo, { field: 'logo', maxBytes: 2 * MAX_LOGO_BYTES }));
  if (logoPng === undefined && !hasBrandChange(change)) {
    return getAccountBrand(deps, opts);
  }
  if (!(await setAccountBrand(deps.db, { id: opts.accountId }, { ...change, logoPng }))) {
    throw new AppError('ACCOUNT_NOT_FOUND', 'no such account');
  }
  return getAccountBrand(deps, opts);
}
