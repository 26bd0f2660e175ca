// Who an account's emails come from: the address is always the operator's (SELLO_MAIL_FROM: the
// one its SPF, DKIM and DMARC vouch for; another domain's address would be refused or filed as
// spam), the name is the account's when it set one. An account that hides Sello's name and gave
// no sender name sends under its brand name or its own name instead of the operator's.

import { DEFAULT_OPERATOR_NAME, type OperatorBrand } from '../config-brand.js';

/** The From brand fields of an account (accounts-repo.ts senderOf). */
export interface MailBrand {
  name: string;
  brand_name: string | null;
  email_sender_name: string | null;
  hide_sello: boolean;
}

/** The operator as a sender: its own name when set (else the configured From as it is), no Reply-To. */
export function operatorSender(operator: OperatorBrand): MailBrand & { email_reply_to: null } {
  const named = operator.name !== DEFAULT_OPERATOR_NAME;
  return {
    name: operator.name,
    brand_name: null,
    email_sender_name: named ? operator.name : null,
    hide_sello: false,
    email_reply_to: null,
  };
}

/** `"Name" <address>` with the configured address and the account's name, or the configured From as it is. */
export function brandedFrom(configured: string, brand: MailBrand | undefined): string {
  const name = brand?.email_sender_name ?? (brand?.hide_sello ? (brand.brand_name ?? brand.name) : null);
  if (!name) {
    return configured;
  }
  // The address of `Name <address>` or of a bare address (config.ts checked SELLO_MAIL_FROM).
  const address = /<([^<>]+)>\s*$/.exec(configured)?.[1] ?? configured.trim();
  // A quoted string (RFC 5322 §3.2.4): commas, colons and the like stay part of the name. The
  // name holds no line break (account-brand.ts), so it cannot start a header of its own;
  // nodemailer encodes it (RFC 2047) when it is not ASCII.
  return `"${name.replace(/["\\]/g, '\\$&')}" <${address}>`;
}
