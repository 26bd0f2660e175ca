// Every string the page shows, in Spanish and English. The language is the workflow's (the API's
// `language`), else the browser's.
import { createContext, useContext } from 'react';
import type { Lang } from './api';
import type { CodeChannel } from './proof';

const es = {
  title: 'Firmar documento',
  loading: 'Cargando el documento…',
  skipToSign: 'Ir a la firma',
  senderAsks: (name: string) => `${name} te pide firmar este documento`,
  senderMessage: 'Mensaje del remitente',
  signingAs: 'Firmas como',
  toolbarLabel: 'Herramientas del documento',
  nextBox: (i: number, n: number) => `Siguiente recuadro (${i} de ${n})`,
  boxOf: (i: number, n: number) => `Recuadro de firma ${i} de ${n}`,
  zoomOut: 'Alejar',
  zoomIn: 'Acercar',
  fitWidth: 'Al ancho',
  zoomLevel: (p: number) => `Zoom: ${p} %`,
  actionsLabel: 'Acciones',
  goToSign: 'Ir a firmar',
  languageLabel: 'Idioma',
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
    verification_pending: 'Verificación de identidad pendiente',
    verified: 'Identidad verificada',
    verification_failed: 'Verificación de identidad fallida',
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
  endorsementLabel: 'Endoso que firmas',
  endorsementTypes: { propiedad: 'Endoso en propiedad', procuracion: 'Endoso en procuración', garantia: 'Endoso en garantía' },
  endorsementTo: (name: string) => `A favor de ${name}`,
  endorsementSigned: 'Has firmado el endoso: el documento ya lo incluye.',
  download: 'Descargar el PDF firmado',
  rejectedByYou: 'Has rechazado el documento',
  rejectedByYouText:
    'El documento queda rechazado y nadie más podrá firmarlo. Quien lo envió lo verá rechazado, con tu motivo, en su sistema; este servicio no envía ningún correo por el rechazo.',
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
  endorsementWithdrawnTitle: 'Endoso retirado',
  endorsementWithdrawn:
    'Quien te envió este endoso lo retiró: ya no hay nada que firmar ni rechazar con este enlace. Si te pide un nuevo endoso, recibirás otro enlace.',
  authorityTitle: 'Método de firma no disponible',
  authority: (a: string) => `La firma con ${a} aún no está disponible en este servidor.`,
  codeHeading: { email: 'Confirma tu correo', sms: 'Confirma tu teléfono', whatsapp: 'Confirma tu WhatsApp' } as Record<
    CodeChannel,
    string
  >,
  codeIntro: (channel: CodeChannel, email: string) =>
    channel === 'sms'
      ? 'Para firmar, te enviaremos un código de 6 dígitos por SMS al teléfono que indicó quien te envió el documento.'
      : channel === 'whatsapp'
        ? 'Para firmar, te enviaremos un código de 6 dígitos por WhatsApp al número que indicó quien te envió el documento.'
        : `Para firmar, te enviaremos un código de 6 dígitos a ${email}.`,
  codeSend: 'Enviar código',
  codeSent: (to: string) => `Enviamos un código a ${to}. Vence en 10 minutos.`,
  codeLabel: 'Código de 6 dígitos',
  codeVerify: 'Verificar',
  codeVerified: 'Identidad confirmada. Ya puedes firmar.',
  codeResend: 'Enviar otro código',
  errorTitle: 'Ha ocurrido un problema',
  network: 'No se pudo conectar con el servidor. Revisa tu conexión e inténtalo de nuevo.',
  dismiss: 'Cerrar aviso',
  retry: 'Reintentar',
  serverSays: 'Detalle del servidor',
  // The service's refusals of an e.firma signature (docs/api.md, "Signing with the SAT e.firma").
  sat: {
    refused: {
      unreadable: 'El certificado (.cer) no se puede leer como un certificado del SAT.',
      csd: 'Este es un certificado de sello digital (CSD), que solo sirve para facturar. Usa tu e.firma (FIEL).',
      rfc_mismatch: 'El certificado es de otro RFC distinto al que se pidió para esta firma.',
      expired: 'El certificado está vencido. Renueva tu e.firma con el SAT.',
      not_yet_valid: 'El certificado aún no es válido.',
      untrusted: 'El certificado no fue emitido por las autoridades certificadoras del SAT que reconoce este servicio.',
      revoked: 'El SAT informa que este certificado está revocado: ya no sirve para firmar. Tramita una nueva e.firma con el SAT.',
    } as Record<string, string>,
    refusedOther: 'El certificado no fue aceptado para firmar.',
    signatureInvalid: 'La firma no corresponde al certificado: la llave privada no es de esta e.firma. Revisa tus archivos.',
    preparationExpired: 'Pasó demasiado tiempo antes de confirmar la firma. Vuelve a firmar.',
    preparationUsed:
      'La firma preparada ya no sirve: el documento cambió desde entonces (firmó otra persona) o ya se usó. Vuelve a firmar.',
    preparationNotFound: 'No se encontró la firma preparada. Vuelve a firmar.',
    efirmaRequired: 'Este documento se firma con tu e.firma del SAT: elige tu certificado y tu llave privada.',
  },
  // The service's refusals of a signer's own certificate (docs/api.md, "Signing with your own certificate").
  cert: {
    refused: {
      unreadable: 'El certificado no se puede leer.',
      name_mismatch:
        'El certificado no es de la persona que debe firmar: su correo (o su identificador) no es el que se pidió para esta firma.',
      key_usage: 'El uso de la llave de este certificado no permite firmar documentos.',
      unsupported_key: 'La llave de este certificado no es RSA ni ECDSA (P-256, P-384, P-521): este servicio no firma con ella.',
      expired: 'El certificado está vencido.',
      not_yet_valid: 'El certificado aún no es válido.',
      untrusted: 'El certificado no fue emitido por una autoridad certificadora que reconozca este servicio.',
      revoked: 'La autoridad certificadora informa que este certificado está revocado: ya no sirve para firmar.',
    } as Record<string, string>,
    signatureInvalid: 'La firma no corresponde al certificado: la llave privada no es la de este certificado.',
  },
  // The fields the signer fills before signing (SignerField*.tsx).
  fields: {
    heading: 'Datos que debes llenar',
    intro: (n: number) => (n === 1 ? 'Llena este dato antes de firmar.' : `Llena estos ${n} datos antes de firmar.`),
    required: 'obligatorio',
    untitled: { text: 'Texto', date: 'Fecha', checkbox: 'Casilla', initials: 'Iniciales', dropdown: 'Opción' } as Record<string, string>,
    choose: 'Elige una opción',
    initialsLabel: 'Tus iniciales',
    initialsHint: (n: number) => (n === 1 ? 'Van en el recuadro de iniciales.' : `Van en cada uno de los ${n} recuadros de iniciales.`),
    initialsBox: 'Tus iniciales aquí',
    dateShown: (text: string, zone: string) => `Se escribirá «${text}» (zona horaria ${zone}).`,
    problem: {
      required: 'Este dato es obligatorio.',
      email: 'Escribe un correo electrónico válido, como nombre@ejemplo.com.',
      number: 'Escribe solo un número, como 42 o 3.5.',
      pattern: 'El valor no tiene el formato pedido.',
      option: 'Elige una de las opciones.',
      date: 'Escribe una fecha válida.',
    } as Record<string, string>,
    refused: 'El servicio no aceptó este valor: revísalo.',
    fix: (n: number) => (n === 1 ? 'Corrige el dato marcado antes de firmar.' : `Corrige los ${n} datos marcados antes de firmar.`),
    boxOf: (label: string, i: number, n: number) => `${label} · recuadro ${i} de ${n}`,
  },
  // The page behind document_url: the signer chooses their box and asks for their personal link.
  identify: {
    title: 'Identifícate para firmar',
    intro:
      'Elige tu recuadro de firma y escribe tu correo electrónico (o tu teléfono, si firmas por SMS o WhatsApp). Si es el del firmante de ese recuadro, te enviaremos tu enlace personal para firmar.',
    chooseLegend: 'Tu recuadro de firma',
    chooseHint: 'También puedes tocar tu recuadro en el esquema de las páginas.',
    outlineNote: 'Aquí ves solo dónde va cada firma: el documento se abre con tu enlace personal.',
    option: (label: string, pages: string) => `${label} (${pages})`,
    pages: (list: number[]) => (list.length === 1 ? `página ${list[0]}` : `páginas ${list.join(', ')}`),
    boxOf: (label: string) => `Recuadro de ${label}`,
    unavailable: 'no disponible en este servidor',
    emailLabel: 'Tu correo electrónico',
    submit: 'Enviarme mi enlace',
    sending: 'Enviando…',
    chooseFirst: 'Elige primero tu recuadro.',
    emailRequired: 'Escribe tu correo electrónico.',
    phoneLabel: 'Tu número de teléfono, con lada del país (p. ej. +52 55 1234 5678)',
    phoneRequired: 'Escribe tu número de teléfono.',
    sentTitle: 'Revisa tu correo',
    sentTitlePhone: 'Revisa tus mensajes',
    sentPhone: (label: string) =>
      `Si este número pertenece al firmante del recuadro «${label}», te hemos enviado un enlace personal para firmar por SMS o WhatsApp.`,
    sent: (label: string) =>
      `Si este correo pertenece al firmante del recuadro «${label}», te hemos enviado un enlace personal para firmar. Ábrelo desde tu correo.`,
    again: 'Pedir otro enlace',
    rateLimited: 'Ya se enviaron varios enlaces a este firmante en la última hora. Inténtalo más tarde.',
    notFoundTitle: 'Enlace no válido',
    notFound: 'Este enlace de documento no es válido. Pide al remitente uno nuevo.',
  },
};

export type Dict = typeof es;

const en: Dict = {
  title: 'Sign document',
  loading: 'Loading the document…',
  skipToSign: 'Go to signing',
  senderAsks: (name) => `${name} asks you to sign this document`,
  senderMessage: 'Message from the sender',
  signingAs: 'Signing as',
  toolbarLabel: 'Document tools',
  nextBox: (i, n) => `Next box (${i} of ${n})`,
  boxOf: (i, n) => `Signature box ${i} of ${n}`,
  zoomOut: 'Zoom out',
  zoomIn: 'Zoom in',
  fitWidth: 'Fit width',
  zoomLevel: (p) => `Zoom: ${p}%`,
  actionsLabel: 'Actions',
  goToSign: 'Go to signing',
  languageLabel: 'Language',
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
    verification_pending: 'Identity verification pending',
    verified: 'Identity verified',
    verification_failed: 'Identity verification failed',
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
  endorsementLabel: 'The endorsement you sign',
  endorsementTypes: {
    propiedad: 'Endorsement: ownership (propiedad)',
    procuracion: 'Endorsement: for collection (procuración)',
    garantia: 'Endorsement: as a pledge (garantía)',
  },
  endorsementTo: (name: string) => `To ${name}`,
  endorsementSigned: 'You have signed the endorsement: the document now includes it.',
  download: 'Download the signed PDF',
  rejectedByYou: 'You rejected the document',
  rejectedByYouText:
    'The document is now rejected and nobody else can sign it. The sender sees it as rejected, with your reason, in their system; this service sends no email about the rejection.',
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
  endorsementWithdrawnTitle: 'Endorsement withdrawn',
  endorsementWithdrawn:
    'The sender withdrew this endorsement: there is nothing left to sign or decline with this link. If they ask you for a new endorsement, you will get another link.',
  authorityTitle: 'Signing method not available',
  authority: (a) => `Signing with ${a} is not available on this server yet.`,
  codeHeading: { email: 'Confirm your email', sms: 'Confirm your phone', whatsapp: 'Confirm your WhatsApp' },
  codeIntro: (channel, email) =>
    channel === 'sms'
      ? 'To sign, we will send a 6-digit code by SMS to the phone the sender gave.'
      : channel === 'whatsapp'
        ? 'To sign, we will send a 6-digit code by WhatsApp to the number the sender gave.'
        : `To sign, we will send a 6-digit code to ${email}.`,
  codeSend: 'Send code',
  codeSent: (to) => `We sent a code to ${to}. It expires in 10 minutes.`,
  codeLabel: '6-digit code',
  codeVerify: 'Verify',
  codeVerified: 'Identity confirmed. You can sign now.',
  codeResend: 'Send another code',
  errorTitle: 'Something went wrong',
  network: 'Could not reach the server. Check your connection and try again.',
  dismiss: 'Dismiss',
  retry: 'Try again',
  serverSays: 'Server detail',
  sat: {
    refused: {
      unreadable: 'The certificate (.cer) cannot be read as an SAT certificate.',
      csd: 'This is a seal certificate (CSD), which only seals invoices. Use your e.firma (FIEL).',
      rfc_mismatch: 'The certificate is for another RFC than the one this signature asks for.',
      expired: 'The certificate has expired. Renew your e.firma with the SAT.',
      not_yet_valid: 'The certificate is not valid yet.',
      untrusted: 'The certificate was not issued by the SAT certification authorities this service recognises.',
      revoked: 'The SAT reports this certificate revoked: it can no longer sign. Apply to the SAT for a new e.firma.',
    },
    refusedOther: 'The certificate was not accepted for signing.',
    signatureInvalid: 'The signature does not match the certificate: the private key is not this e.firma’s. Check your files.',
    preparationExpired: 'Too much time passed before the signature was confirmed. Sign again.',
    preparationUsed:
      'The prepared signature can no longer be used: the document changed since (someone else signed) or it was used already. Sign again.',
    preparationNotFound: 'The prepared signature was not found. Sign again.',
    efirmaRequired: 'This document is signed with your SAT e.firma: choose your certificate and private key.',
  },
  cert: {
    refused: {
      unreadable: 'The certificate cannot be read.',
      name_mismatch:
        'The certificate is not for the person who must sign: its email (or identifier) is not the one this signature asks for.',
      key_usage: "This certificate's key usage does not allow signing documents.",
      unsupported_key: "This certificate's key is neither RSA nor ECDSA (P-256, P-384, P-521): this service cannot sign with it.",
      expired: 'The certificate has expired.',
      not_yet_valid: 'The certificate is not valid yet.',
      untrusted: 'The certificate was not issued by a certification authority this service recognises.',
      revoked: 'The certification authority reports this certificate revoked: it can no longer sign.',
    },
    signatureInvalid: "The signature does not match the certificate: the private key is not this certificate's.",
  },
  fields: {
    heading: 'Details to fill in',
    intro: (n) => (n === 1 ? 'Fill in this detail before signing.' : `Fill in these ${n} details before signing.`),
    required: 'required',
    untitled: { text: 'Text', date: 'Date', checkbox: 'Checkbox', initials: 'Initials', dropdown: 'Choice' },
    choose: 'Choose an option',
    initialsLabel: 'Your initials',
    initialsHint: (n) => (n === 1 ? 'They go in the initials box.' : `They go in each of the ${n} initials boxes.`),
    initialsBox: 'Your initials here',
    dateShown: (text, zone) => `“${text}” will be written (time zone ${zone}).`,
    problem: {
      required: 'This detail is required.',
      email: 'Type a valid email address, such as name@example.com.',
      number: 'Type a number only, such as 42 or 3.5.',
      pattern: 'The value is not in the format asked for.',
      option: 'Choose one of the options.',
      date: 'Type a valid date.',
    },
    refused: 'The service did not accept this value: check it.',
    fix: (n) => (n === 1 ? 'Correct the marked detail before signing.' : `Correct the ${n} marked details before signing.`),
    boxOf: (label, i, n) => `${label} · box ${i} of ${n}`,
  },
  identify: {
    title: 'Identify yourself to sign',
    intro:
      'Choose your signature box and type your email address (or your phone number, if you sign by SMS or WhatsApp). If it is that box’s signer’s, we will send you your personal signing link.',
    chooseLegend: 'Your signature box',
    chooseHint: 'You can also tap your box on the outline of the pages.',
    outlineNote: 'This shows only where each signature goes: the document opens with your personal link.',
    option: (label, pages) => `${label} (${pages})`,
    pages: (list) => (list.length === 1 ? `page ${list[0]}` : `pages ${list.join(', ')}`),
    boxOf: (label) => `Box of ${label}`,
    unavailable: 'not available on this server',
    emailLabel: 'Your email address',
    submit: 'Send me my link',
    sending: 'Sending…',
    chooseFirst: 'Choose your box first.',
    emailRequired: 'Type your email address.',
    phoneLabel: 'Your phone number, with the country code (e.g. +52 55 1234 5678)',
    phoneRequired: 'Type your phone number.',
    sentTitle: 'Check your email',
    sentTitlePhone: 'Check your messages',
    sentPhone: (label) =>
      `If this number belongs to the signer of the box “${label}”, we sent you a personal signing link by SMS or WhatsApp.`,
    sent: (label) =>
      `If this address belongs to the signer of the box “${label}”, we sent you a personal signing link. Open it from your email.`,
    again: 'Ask for another link',
    rateLimited: 'Several links were already sent to this signer in the last hour. Try again later.',
    notFoundTitle: 'Link not valid',
    notFound: 'This document link is not valid. Ask the sender for a new one.',
  },
};

export const dictionaries: Record<Lang, Dict> = { es, en };

/** The names of the languages, each in itself (the language switch). */
export const LANGUAGE_NAMES: Record<Lang, string> = { es: 'Español', en: 'English' };

/**
 * The browser's preferred language among the two the page speaks; otherwise `fallback` (the
 * service's default language, SELLO_DEFAULT_LANGUAGE, once the page's data says it).
 */
export function browserLang(languages: readonly string[] = navigator.languages ?? [navigator.language], fallback: Lang = 'es'): Lang {
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0];
    if (base === 'es' || base === 'en') {
      return base;
    }
  }
  return fallback;
}

export const I18n = createContext<{ lang: Lang; t: Dict }>({ lang: 'es', t: es });

export const useI18n = () => useContext(I18n);

export function formatDate(iso: string, lang: Lang): string {
  return new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'long', timeStyle: 'short' }).format(new Date(iso));
}
