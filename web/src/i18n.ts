// Every string the page shows, in Spanish and English. The language is the workflow's (the API's
// `language`), else the browser's.
import { createContext, useContext } from 'react';
import type { Lang } from './api';

const es = {
  title: 'Firmar documento',
  loading: 'Cargando el documento…',
  skipToSign: 'Ir a la firma',
  documentLabel: 'Documento',
  pageLabel: (n: number, total: number) => `Página ${n} de ${total}`,
  pageLoading: 'Cargando página…',
  boxHint: (n: number) => (n === 1 ? 'Tu firma irá en el recuadro resaltado.' : `Tu firma irá en los ${n} recuadros resaltados.`),
  boxLabel: 'Aquí va tu firma',
  boxSigned: 'Tu firma',
  pdfError: 'No se pudo mostrar el documento.',
  signersHeading: 'Firmantes',
  you: 'tú',
  unnamed: 'Firmante',
  signerStatus: {
    pending: 'Pendiente',
    invited: 'Invitado',
    viewed: 'Lo ha visto',
    signed: 'Firmado',
    rejected: 'Rechazado',
  } as Record<string, string>,
  signHeading: 'Tu firma',
  tabsLabel: 'Forma de firmar',
  tabDraw: 'Dibujar',
  tabType: 'Escribir',
  padLabel: 'Área de firma: dibuja tu firma con el dedo, el ratón o un lápiz. Para usar el teclado, elige «Escribir».',
  padHint: 'Dibuja tu firma dentro del recuadro.',
  padEmpty: 'Aún no has dibujado tu firma.',
  padDrawn: 'Firma dibujada.',
  clear: 'Borrar',
  typedLabel: 'Escribe tu nombre como firma',
  typedHint: 'Hasta 100 caracteres.',
  typedPreview: 'Vista previa de la firma',
  consent: 'Acepto firmar este documento electrónicamente y que esta firma tenga el mismo valor que mi firma manuscrita.',
  sign: 'Firmar',
  signing: 'Firmando…',
  signNeeds: 'Para firmar, dibuja o escribe tu firma y marca la casilla de aceptación.',
  reject: 'Rechazar',
  rejectTitle: 'Rechazar el documento',
  rejectIntro: 'El documento quedará rechazado para todos los firmantes y el remitente verá tu motivo.',
  reasonLabel: 'Motivo del rechazo',
  counter: (n: number, max: number) => `${n} de ${max} caracteres`,
  tooLong: (max: number) => `El motivo admite como máximo ${max} caracteres.`,
  reasonRequired: 'Escribe el motivo del rechazo.',
  cancel: 'Cancelar',
  confirmReject: 'Rechazar documento',
  rejecting: 'Rechazando…',
  signedTitle: 'Has firmado el documento',
  signedAt: (when: string) => `Firmado el ${when}.`,
  waitingOthers: 'Falta la firma de otras personas; el documento se completará cuando firmen todos.',
  completedAll: 'Todos han firmado: el documento está completo.',
  download: 'Descargar el PDF firmado',
  rejectedByYou: 'Has rechazado el documento',
  rejectedByYouText: 'Nadie más podrá firmarlo. El remitente ha sido avisado.',
  state: {
    completed: ['Documento completado', 'Todos los firmantes han firmado este documento.'],
    rejected: ['Documento rechazado', 'Un firmante rechazó este documento; ya no se puede firmar.'],
    expired: ['Plazo vencido', 'El plazo para firmar este documento ha terminado. Pide al remitente uno nuevo.'],
    cancelled: ['Firma cancelada', 'El remitente canceló la firma de este documento.'],
    deleted: ['Documento eliminado', 'Este documento fue eliminado y ya no se puede firmar.'],
    draft: ['Aún no disponible', 'Este documento todavía no se ha enviado para firmar.'],
  } as Record<string, [string, string]>,
  linkInvalidTitle: 'Enlace no válido',
  linkInvalid: 'Este enlace de firma no es válido. Pide al remitente uno nuevo.',
  authorityTitle: 'Método de firma no disponible',
  authority: (a: string) => `La firma con ${a} aún no está disponible en este servidor.`,
  codeHeading: 'Confirma tu correo',
  codeIntro: (email: string) => `Para firmar, te enviaremos un código de 6 dígitos a ${email}.`,
  codeSend: 'Enviar código',
  codeSent: (to: string) => `Enviamos un código a ${to}. Vence en 10 minutos.`,
  codeLabel: 'Código de 6 dígitos',
  codeVerify: 'Verificar',
  codeVerified: 'Correo confirmado. Ya puedes firmar.',
  codeResend: 'Enviar otro código',
  errorTitle: 'Ha ocurrido un problema',
  network: 'No se pudo conectar con el servidor. Revisa tu conexión e inténtalo de nuevo.',
  dismiss: 'Cerrar aviso',
  retry: 'Reintentar',
  serverSays: 'Detalle del servidor',
};

export type Dict = typeof es;

const en: Dict = {
  title: 'Sign document',
  loading: 'Loading the document…',
  skipToSign: 'Go to signing',
  documentLabel: 'Document',
  pageLabel: (n, total) => `Page ${n} of ${total}`,
  pageLoading: 'Loading page…',
  boxHint: (n) => (n === 1 ? 'Your signature goes in the highlighted box.' : `Your signature goes in the ${n} highlighted boxes.`),
  boxLabel: 'Your signature goes here',
  boxSigned: 'Your signature',
  pdfError: 'The document could not be shown.',
  signersHeading: 'Signers',
  you: 'you',
  unnamed: 'Signer',
  signerStatus: {
    pending: 'Pending',
    invited: 'Invited',
    viewed: 'Viewed',
    signed: 'Signed',
    rejected: 'Rejected',
  },
  signHeading: 'Your signature',
  tabsLabel: 'How to sign',
  tabDraw: 'Draw',
  tabType: 'Type',
  padLabel: 'Signature pad: draw your signature with a finger, mouse or pen. To use the keyboard, choose “Type”.',
  padHint: 'Draw your signature inside the box.',
  padEmpty: 'You have not drawn your signature yet.',
  padDrawn: 'Signature drawn.',
  clear: 'Clear',
  typedLabel: 'Type your name as your signature',
  typedHint: 'Up to 100 characters.',
  typedPreview: 'Signature preview',
  consent: 'I agree to sign this document electronically, and that this signature has the same value as my handwritten signature.',
  sign: 'Sign',
  signing: 'Signing…',
  signNeeds: 'To sign, draw or type your signature and tick the consent box.',
  reject: 'Reject',
  rejectTitle: 'Reject the document',
  rejectIntro: 'The document will be rejected for every signer, and the sender will see your reason.',
  reasonLabel: 'Reason for rejecting',
  counter: (n, max) => `${n} of ${max} characters`,
  tooLong: (max) => `The reason can be at most ${max} characters.`,
  reasonRequired: 'Write why you reject the document.',
  cancel: 'Cancel',
  confirmReject: 'Reject document',
  rejecting: 'Rejecting…',
  signedTitle: 'You have signed the document',
  signedAt: (when) => `Signed on ${when}.`,
  waitingOthers: 'Other people still have to sign; the document will be complete when everyone has.',
  completedAll: 'Everyone has signed: the document is complete.',
  download: 'Download the signed PDF',
  rejectedByYou: 'You rejected the document',
  rejectedByYouText: 'Nobody else can sign it. The sender has been told.',
  state: {
    completed: ['Document completed', 'Every signer has signed this document.'],
    rejected: ['Document rejected', 'A signer rejected this document; it can no longer be signed.'],
    expired: ['Signing period over', 'The time to sign this document has ended. Ask the sender for a new one.'],
    cancelled: ['Signing cancelled', 'The sender cancelled the signing of this document.'],
    deleted: ['Document deleted', 'This document was deleted and can no longer be signed.'],
    draft: ['Not available yet', 'This document has not been sent for signing yet.'],
  },
  linkInvalidTitle: 'Link not valid',
  linkInvalid: 'This signing link is not valid. Ask the sender for a new one.',
  authorityTitle: 'Signing method not available',
  authority: (a) => `Signing with ${a} is not available on this server yet.`,
  codeHeading: 'Confirm your email',
  codeIntro: (email) => `To sign, we will send a 6-digit code to ${email}.`,
  codeSend: 'Send code',
  codeSent: (to) => `We sent a code to ${to}. It expires in 10 minutes.`,
  codeLabel: '6-digit code',
  codeVerify: 'Verify',
  codeVerified: 'Email confirmed. You can sign now.',
  codeResend: 'Send another code',
  errorTitle: 'Something went wrong',
  network: 'Could not reach the server. Check your connection and try again.',
  dismiss: 'Dismiss',
  retry: 'Try again',
  serverSays: 'Server detail',
};

export const dictionaries: Record<Lang, Dict> = { es, en };

/** The browser's preferred language among the two the page speaks; Spanish otherwise. */
export function browserLang(languages: readonly string[] = navigator.languages ?? [navigator.language]): Lang {
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0];
    if (base === 'es' || base === 'en') {
      return base;
    }
  }
  return 'es';
}

export const I18n = createContext<{ lang: Lang; t: Dict }>({ lang: 'es', t: es });

export const useI18n = () => useContext(I18n);

export function formatDate(iso: string, lang: Lang): string {
  return new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'long', timeStyle: 'short' }).format(new Date(iso));
}
