// The texts of the service's emails, in Spanish and English (the workflow's `language`, else the
// operator's default language, decisions.md; languageOf settles it). Every value that comes from
// a client (names, subjects, messages) is escaped in the HTML part: an invitation must not become
// a vehicle for markup or links.

export type Language = 'es' | 'en';

export interface InvitationInput {
  language: Language;
  signerName: string | null;
  documentName: string;
  signUrl: string;
  senderName: string;
  /** The workflow's own subject and message, when set. */
  subject?: string;
  message?: string;
  /** Several documents of a set in one invitation. */
  documentCount?: number;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const T = {
  es: {
    hello: (n: string | null) => (n ? `Hola ${n},` : 'Hola,'),
    inviteSubject: (doc: string) => `Firma solicitada: ${doc}`,
    invite: (sender: string, doc: string, count?: number) =>
      count && count > 1 ? `${sender} le pide firmar ${count} documentos, entre ellos «${doc}».` : `${sender} le pide firmar «${doc}».`,
    remindSubject: (doc: string) => `Recordatorio: firma pendiente de ${doc}`,
    remind: (doc: string) => `Su firma de «${doc}» sigue pendiente.`,
    button: 'Revisar y firmar',
    concludeSubject: (doc: string) => `Documento firmado: ${doc}`,
    conclude: (doc: string) => `Todas las personas firmaron «${doc}».`,
    attached: 'El documento firmado va adjunto.',
    tooLarge: (url: string) => `El documento firmado es demasiado grande para adjuntarlo; descárguelo aquí: ${url}`,
    otpSubject: 'Su código para firmar',
    otp: (code: string, minutes: number) =>
      `Su código es ${code}. Vence en ${minutes} minutos. Si no solicitó firmar, ignore este mensaje.`,
    ignore: 'Si no esperaba este mensaje, puede ignorarlo.',
    panelSubject: (account: string) => `Entrar al panel de ${account}`,
    panel: (account: string, service: string, minutes: number) =>
      `Para entrar al panel de la cuenta «${account}» en ${service}, abra este enlace. Sirve una sola vez y vence en ${minutes} minutos.`,
    panelButton: 'Entrar al panel',
  },
  en: {
    hello: (n: string | null) => (n ? `Hello ${n},` : 'Hello,'),
    inviteSubject: (doc: string) => `Signature requested: ${doc}`,
    invite: (sender: string, doc: string, count?: number) =>
      count && count > 1 ? `${sender} asks you to sign ${count} documents, including “${doc}”.` : `${sender} asks you to sign “${doc}”.`,
    remindSubject: (doc: string) => `Reminder: your signature on ${doc} is pending`,
    remind: (doc: string) => `Your signature on “${doc}” is still pending.`,
    button: 'Review and sign',
    concludeSubject: (doc: string) => `Document signed: ${doc}`,
    conclude: (doc: string) => `Everyone has signed “${doc}”.`,
    attached: 'The signed document is attached.',
    tooLarge: (url: string) => `The signed document is too large to attach; download it here: ${url}`,
    otpSubject: 'Your signing code',
    otp: (code: string, minutes: number) =>
      `Your code is ${code}. It expires in ${minutes} minutes. If you did not ask to sign, ignore this message.`,
    ignore: 'If you did not expect this message, you can ignore it.',
    panelSubject: (account: string) => `Sign in to the ${account} panel`,
    panel: (account: string, service: string, minutes: number) =>
      `To sign in to the panel of the account “${account}” on ${service}, open this link. It works once and expires in ${minutes} minutes.`,
    panelButton: 'Sign in to the panel',
  },
} as const;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(paragraphs: string[], link?: { url: string; label: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n');
  const button = link
    ? `<p><a href="${escapeHtml(link.url)}" style="display:inline-block;padding:10px 18px;background:#1f4e8c;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(link.label)}</a></p>`
    : '';
  return `<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;color:#222">\n${body}\n${button}\n</body></html>`;
}

export function invitationMail(i: InvitationInput, reminder = false): RenderedMail {
  const t = T[i.language];
  const lines = [
    t.hello(i.signerName),
    reminder ? t.remind(i.documentName) : t.invite(i.senderName, i.documentName, i.documentCount),
    ...(i.message ? [i.message] : []),
  ];
  const subject = reminder ? t.remindSubject(i.documentName) : (i.subject ?? t.inviteSubject(i.documentName));
  return {
    subject,
    text: `${lines.join('\n\n')}\n\n${t.button}: ${i.signUrl}\n\n${t.ignore}\n`,
    html: page(lines, { url: i.signUrl, label: t.button }),
  };
}

export function conclusionMail(i: { language: Language; documentName: string; attached: boolean; downloadUrls?: string[] }): RenderedMail {
  const t = T[i.language];
  const lines = [t.conclude(i.documentName), ...(i.attached ? [t.attached] : []), ...(i.downloadUrls ?? []).map((u) => t.tooLarge(u))];
  return { subject: t.concludeSubject(i.documentName), text: `${lines.join('\n\n')}\n`, html: page(lines) };
}

export function otpMail(i: { language: Language; code: string; minutes: number }): RenderedMail {
  const t = T[i.language];
  const line = t.otp(i.code, i.minutes);
  return { subject: t.otpSubject, text: `${line}\n`, html: page([line]) };
}

/** The one-time sign-in link of the account panel. */
/** `service`: the operator's name (SELLO_OPERATOR_NAME), as the panel's sign-in page shows it. */
export function panelSignInMail(i: {
  language: Language;
  accountName: string;
  service: string;
  url: string;
  minutes: number;
}): RenderedMail {
  const t = T[i.language];
  const line = t.panel(i.accountName, i.service, i.minutes);
  return {
    subject: t.panelSubject(i.accountName),
    text: `${line}\n\n${t.panelButton}: ${i.url}\n\n${t.ignore}\n`,
    html: page([line, t.ignore], { url: i.url, label: t.panelButton }),
  };
}
