// The certified email's text: the sender's subject and message as given, then a short note on what
// the message is (the document attached or linked, and that its delivery is recorded), in the
// document's language. The open image is in the HTML part only: it is what an email client loads
// when it shows the message, so its first load is a probable read, never a proof.
import { escapeHtml, type Language, type RenderedMail } from './email-templates.js';

const T = {
  es: {
    attached: (doc: string) => `El documento «${doc}» va adjunto a este mensaje.`,
    linkOnly: (doc: string) => `El documento «${doc}» es demasiado grande para adjuntarlo.`,
    download: 'Descargar el documento',
    note: (sender: string) =>
      `Este es un correo certificado enviado por ${sender}: su entrega, su apertura y la descarga del documento quedan registradas como evidencia.`,
  },
  en: {
    attached: (doc: string) => `The document “${doc}” is attached to this message.`,
    linkOnly: (doc: string) => `The document “${doc}” is too large to attach.`,
    download: 'Download the document',
    note: (sender: string) =>
      `This is a certified email sent by ${sender}: its delivery, its opening and the download of the document are recorded as evidence.`,
  },
};

export function certifiedMail(i: {
  language: Language;
  subject: string;
  message: string;
  senderName: string;
  documentName: string;
  attached: boolean;
  downloadUrl: string;
  openImageUrl: string;
}): RenderedMail {
  const t = T[i.language];
  const about = i.attached ? t.attached(i.documentName) : t.linkOnly(i.documentName);
  const text = [i.message, about, `${t.download}: ${i.downloadUrl}`, t.note(i.senderName)].filter((p) => p.trim() !== '').join('\n\n');
  const paragraph = (p: string) => `<p>${escapeHtml(p).replace(/\r?\n/g, '<br>')}</p>`;
  const html = [
    '<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;color:#222">',
    ...(i.message.trim() ? [paragraph(i.message)] : []),
    paragraph(about),
    `<p><a href="${escapeHtml(i.downloadUrl)}">${escapeHtml(t.download)}</a></p>`,
    `<p style="font-size:12px;color:#666">${escapeHtml(t.note(i.senderName))}</p>`,
    `<img src="${escapeHtml(i.openImageUrl)}" width="1" height="1" alt="" style="display:block;border:0">`,
    '</body></html>',
  ].join('\n');
  return { subject: i.subject, text: `${text}\n`, html };
}
