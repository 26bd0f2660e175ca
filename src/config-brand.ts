// The operator's brand (SELLO_OPERATOR_*), apart from config.ts for size: what the panel's sign-in
// page shows, a page that belongs to no account. The colour and the logo meet the rules of an
// account's brand (domain/accounts/account-brand.ts): white text readable on the colour, a small PNG.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkBrandChange, checkLogo } from './domain/accounts/account-brand.js';

/** The operator's name until SELLO_OPERATOR_NAME says another. */
export const DEFAULT_OPERATOR_NAME = 'Sello';

export interface OperatorBrand {
  /** The name the sign-in page and the sign-in emails show; "Sello" by default. */
  name: string;
  /** #rrggbb of the sign-in page's header and buttons; null: the panel's own colour. */
  colour: string | null;
  /** The logo as a PNG, or null. */
  logoPng: Buffer | null;
}

export function operatorBrandSettings(env: Record<string, string | undefined>, problems: string[]): OperatorBrand {
  const brand: OperatorBrand = { name: DEFAULT_OPERATOR_NAME, colour: null, logoPng: null };
  const field = (name: string, check: () => void) => {
    try {
      check();
    } catch (err) {
      // The rule's words without the API field's name: the variable is named instead.
      problems.push(`${name}: ${(err as Error).message.replace(/^[\w[\]]+: /, '')}`);
    }
  };
  if (env.SELLO_OPERATOR_NAME !== undefined) {
    field('SELLO_OPERATOR_NAME', () => {
      brand.name = checkBrandChange({ brandName: env.SELLO_OPERATOR_NAME }).brandName ?? brand.name;
    });
  }
  if (env.SELLO_OPERATOR_COLOUR) {
    field('SELLO_OPERATOR_COLOUR', () => {
      brand.colour = checkBrandChange({ brandColour: env.SELLO_OPERATOR_COLOUR }).brandColour ?? null;
    });
  }
  const logo = env.SELLO_OPERATOR_LOGO;
  if (logo) {
    field('SELLO_OPERATOR_LOGO', () => {
      brand.logoPng = checkLogo(readFileSync(resolve(logo)));
    });
  }
  return brand;
}
