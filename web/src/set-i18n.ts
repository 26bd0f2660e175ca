// The strings of the set page (/sign/set/{token}), in Spanish and English, and the words of the
// shared components (consent, rejection dialog, states) as they read for a set of documents.
import type { Lang } from './api';
import { dictionaries, type Dict } from './i18n';

const es = {
  setTitle: 'Firmar documentos',
  intro: (n: number) =>
    n === 1 ? 'Te piden firmar 1 documento.' : `Te piden firmar ${n} documentos. Revísalos y fírmalos todos de una vez.`,
  documentsHeading: 'Documentos',
  pages: (n: number) => (n === 1 ? '1 página' : `${n} páginas`),
  boxes: (n: number) => (n === 1 ? '1 firma tuya' : `${n} firmas tuyas`),
  view: 'Ver',
  hide: 'Ocultar',
  signAll: (n: number) => (n === 1 ? 'Firmar el documento' : `Firmar los ${n} documentos`),
  signingAll: (n: number) => (n === 1 ? 'Firmando el documento…' : `Firmando ${n} documentos…`),
  docSigned: 'Firmado',
  docPending: 'Pendiente',
  signedAllTitle: 'Has firmado los documentos',
  waitingOthers: 'Falta la firma de otras personas; los documentos se completarán cuando firmen todos.',
  completedAll: 'Todos han firmado: los documentos están completos.',
  downloadOne: (name: string) => `Descargar «${name}» firmado`,
  notDueTitle: 'Aún no es tu turno',
  notDue: 'Estos documentos se firman en orden. Te avisaremos por correo cuando te toque firmar.',
  rejectedByYouText:
    'Los documentos quedan rechazados y nadie más podrá firmarlos. Quien los envió los verá rechazados, con tu motivo, en su sistema; este servicio no envía ningún correo por el rechazo.',
};

type SetDict = typeof es;

const en: SetDict = {
  setTitle: 'Sign documents',
  intro: (n) =>
    n === 1 ? 'You are asked to sign 1 document.' : `You are asked to sign ${n} documents. Review them and sign them all at once.`,
  documentsHeading: 'Documents',
  pages: (n) => (n === 1 ? '1 page' : `${n} pages`),
  boxes: (n) => (n === 1 ? '1 signature of yours' : `${n} signatures of yours`),
  view: 'View',
  hide: 'Hide',
  signAll: (n) => (n === 1 ? 'Sign the document' : `Sign the ${n} documents`),
  signingAll: (n) => (n === 1 ? 'Signing the document…' : `Signing ${n} documents…`),
  docSigned: 'Signed',
  docPending: 'Pending',
  signedAllTitle: 'You have signed the documents',
  waitingOthers: 'Other people still have to sign; the documents will be complete when everyone has.',
  completedAll: 'Everyone has signed: the documents are complete.',
  downloadOne: (name) => `Download “${name}” signed`,
  notDueTitle: 'Not your turn yet',
  notDue: 'These documents are signed in order. We will email you when it is your turn.',
  rejectedByYouText:
    'The documents are now rejected and nobody else can sign them. The sender sees them as rejected, with your reason, in their system; this service sends no email about the rejection.',
};

/** What the shared components say on the set page. */
const shared: Record<Lang, Partial<Dict>> = {
  es: {
    title: es.setTitle,
    loading: 'Cargando los documentos…',
    consent: 'Acepto firmar estos documentos electrónicamente y que esta firma tenga el mismo valor que mi firma manuscrita.',
    rejectTitle: 'Rechazar los documentos',
    rejectIntro: 'Todos los documentos quedarán rechazados o cancelados para todos los firmantes y el remitente verá tu motivo.',
    confirmReject: 'Rechazar documentos',
    rejectedByYou: 'Has rechazado los documentos',
    rejectedByYouText: es.rejectedByYouText,
    senderAsks: (name: string) => `${name} te pide firmar estos documentos`,
  },
  en: {
    title: en.setTitle,
    loading: 'Loading the documents…',
    consent: 'I agree to sign these documents electronically, and that this signature has the same value as my handwritten signature.',
    rejectTitle: 'Reject the documents',
    rejectIntro: 'Every document will be rejected or cancelled for every signer, and the sender will see your reason.',
    confirmReject: 'Reject documents',
    rejectedByYou: 'You rejected the documents',
    rejectedByYouText: en.rejectedByYouText,
    senderAsks: (name: string) => `${name} asks you to sign these documents`,
  },
};

/** The states of a set (GET /sign/api/set/{token} `set.status`), as the page names them. */
const states: Record<Lang, Record<string, [string, string]>> = {
  es: {
    COMPLETED: ['Documentos completados', 'Todos los firmantes han firmado estos documentos.'],
    REJECTED: ['Documentos rechazados', 'Un firmante rechazó uno de los documentos; ya no se pueden firmar.'],
    EXPIRED: ['Plazo vencido', 'El plazo para firmar estos documentos ha terminado. Pide al remitente que los envíe de nuevo.'],
    CANCELLED: ['Firma cancelada', 'El remitente canceló la firma de estos documentos.'],
    OPEN: ['Aún no disponible', 'Estos documentos todavía no se han enviado para firmar.'],
  },
  en: {
    COMPLETED: ['Documents completed', 'Every signer has signed these documents.'],
    REJECTED: ['Documents rejected', 'A signer rejected one of the documents; they can no longer be signed.'],
    EXPIRED: ['Signing period over', 'The time to sign these documents has ended. Ask the sender to send them again.'],
    CANCELLED: ['Signing cancelled', 'The sender cancelled the signing of these documents.'],
    OPEN: ['Not available yet', 'These documents have not been sent for signing yet.'],
  },
};

export const setDictionaries: Record<Lang, SetDict> = { es, en };

/** The shared dictionary with the set's wording, for the I18n provider of the set page. */
export function setPageDict(lang: Lang): Dict {
  const base = dictionaries[lang];
  return { ...base, ...shared[lang], state: { ...base.state, ...states[lang] } } as Dict;
}
