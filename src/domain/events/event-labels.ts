// The event kinds in words, in Spanish and English, for the people who read the panel's delivery
// log and subscriptions; the identifier stays what receivers and the API see. Typed by EventKind,
// so a new kind cannot be added without its words. An identifier this list does not know is shown
// as it is.
import type { EventKind } from './event-types.js';

const EVENTS: Record<EventKind, { es: string; en: string }> = {
  original_signed: { es: 'Original firmado', en: 'Original signed' },
  universal_signed: { es: 'Versión universal firmada', en: 'Universal rendition signed' },
  document_completed: { es: 'Documento completado', en: 'Document completed' },
  document_rejected: { es: 'Documento rechazado', en: 'Document rejected' },
  workflow_expired: { es: 'Flujo vencido', en: 'Workflow expired' },
  whatsapp_error: { es: 'WhatsApp no entregado', en: 'WhatsApp message not delivered' },
  sms_error: { es: 'SMS no entregado', en: 'SMS not delivered' },
  email_error: { es: 'Correo no entregado', en: 'Email not delivered' },
  original_nom151_stamped: { es: 'Original con sello NOM-151', en: 'Original NOM-151 stamped' },
  universal_nom151_stamped: { es: 'Versión universal con sello NOM-151', en: 'Universal rendition NOM-151 stamped' },
  identity_verification_failed: { es: 'Identidad no verificada', en: 'Identity verification failed' },
  identity_verification_passed: { es: 'Identidad verificada', en: 'Identity verification passed' },
  bulk_completed: { es: 'Envío masivo terminado', en: 'Bulk send finished' },
};

/** An event kind in words; an unknown identifier as it is. */
export function eventLabel(kind: string, language: 'es' | 'en'): string {
  return Object.hasOwn(EVENTS, kind) ? EVENTS[kind as EventKind][language] : kind;
}
