// The texts of SMS and WhatsApp messages, in Spanish and English (the workflow's `language`). An SMS
// is plain text and short: one line with the personal link. WhatsApp business-initiated messages
// must use a template the provider approved beforehand, so each message also carries the values of
// its template's body parameters, in order (docs/configuration.md lists the templates to register).
import type { Language } from './email-templates.js';

export type TextKind = 'invitation' | 'reminder' | 'otp';

export interface RenderedText {
  /** The SMS body (and the WhatsApp body where no template is configured). */
  text: string;
  /** The approved template's body parameters, in order. */
  params: string[];
}

const T = {
  es: {
    invite: (sender: string, doc: string, url: string) => `${sender} le pide firmar «${doc}». Revise y firme aquí: ${url}`,
    remind: (doc: string, url: string) => `Recordatorio: su firma de «${doc}» sigue pendiente. Firme aquí: ${url}`,
    otp: (code: string, minutes: number) => `Su código para firmar es ${code}. Vence en ${minutes} minutos. No lo comparta.`,
  },
  en: {
    invite: (sender: string, doc: string, url: string) => `${sender} asks you to sign “${doc}”. Review and sign here: ${url}`,
    remind: (doc: string, url: string) => `Reminder: your signature on “${doc}” is pending. Sign here: ${url}`,
    otp: (code: string, minutes: number) => `Your signing code is ${code}. It expires in ${minutes} minutes. Do not share it.`,
  },
} as const;

/** Invitation template parameters: {{1}} sender, {{2}} document, {{3}} link. Reminder: {{1}} document, {{2}} link. */
export function invitationText(
  i: { language: Language; senderName: string; documentName: string; signUrl: string },
  reminder = false,
): RenderedText {
  const t = T[i.language];
  return reminder
    ? { text: t.remind(i.documentName, i.signUrl), params: [i.documentName, i.signUrl] }
    : { text: t.invite(i.senderName, i.documentName, i.signUrl), params: [i.senderName, i.documentName, i.signUrl] };
}

/** Code template parameter: {{1}} the code (Meta's authentication templates also take it for their copy button). */
export function otpText(i: { language: Language; code: string; minutes: number }): RenderedText {
  return { text: T[i.language].otp(i.code, i.minutes), params: [i.code] };
}
