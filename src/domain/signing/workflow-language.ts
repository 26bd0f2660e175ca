// The language a workflow sets for its signers: shared by the signing page's info, the emails and
// texts, and the signature's legend (one-time-code.ts and get-signing-info.ts both need it, so it is
// neither's). A workflow that sets none speaks the operator's default language
// (SELLO_DEFAULT_LANGUAGE, Spanish unless configured; decisions.md "Workflow keys") in what the
// service sends. The signer page alone asks the signer's browser before that default: the sender
// chose no language, and a signer reads best in the one their browser asks for; an email or a text
// is written before any browser is there to ask.

/** The workflow's language when it sets one, else null (the page then follows the browser's). */
export function explicitLanguage(workflow: unknown): 'es' | 'en' | null {
  const l = (workflow as { language?: string } | null)?.language;
  return l === 'es' || l === 'en' ? l : null;
}

/**
 * The language of the emails, SMS and WhatsApp texts of a document or set (invitation, reminder,
 * one-time code, conclusion): the workflow's, else the operator's default.
 */
export function languageOf(workflow: unknown, operatorDefault: 'es' | 'en'): 'es' | 'en' {
  return explicitLanguage(workflow) ?? operatorDefault;
}

/**
 * The language of the signature's legend: the page's, sent with the signature (the page starts in
 * the workflow's language, else the browser's, and the signer may switch it), so the legend reads
 * as the page the signer signed on; without one (an API client), the workflow's; else the
 * service's default (SELLO_DEFAULT_LANGUAGE).
 */
export function legendLanguage(workflow: unknown, page: 'es' | 'en' | undefined, fallback: 'es' | 'en'): 'es' | 'en' {
  return page ?? explicitLanguage(workflow) ?? fallback;
}
