// The workflow settings a flow runs with: what the client set, the defaults of decisions.md for
// the rest, and the expiration as an instant. The language, whose default is the operator's, is
// settled by languageOf (signing/workflow-language.ts). `dd/mm/yyyy` and ISO dates without a time
// mean the end of that day in the account's time zone; an ISO date-time without an offset is read
// in that zone too, so "2026-12-01T18:00" is six in the evening where the account is.
import { invalid } from '../errors.js';
import type { WorkflowSettings } from '../documents/workflow-settings.js';

export const DEFAULT_REMIND_EVERY_DAYS = 2;
export const DEFAULT_EXPIRATION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface EffectiveWorkflow {
  ordered: boolean;
  remindEveryDays: number;
  subject?: string;
  message?: string;
  attachFiles: boolean;
  conclusionEmails: string[];
}

export function effectiveWorkflow(w: WorkflowSettings | null | undefined): EffectiveWorkflow {
  return {
    ordered: w?.ordered ?? false,
    remindEveryDays: w?.remind_every ?? DEFAULT_REMIND_EVERY_DAYS,
    subject: w?.subject,
    message: w?.message,
    attachFiles: w?.attach_files ?? false,
    conclusionEmails: w?.conclusion_emails ?? [],
  };
}

/** When a flow started at `startedAt` expires: the client's date, else 30 days after the start. */
export function expirationInstant(w: WorkflowSettings | null | undefined, startedAt: Date, timeZone: string): Date {
  if (!w?.expiration_date) {
    return new Date(startedAt.getTime() + DEFAULT_EXPIRATION_DAYS * DAY_MS);
  }
  return parseExpiration(w.expiration_date, timeZone);
}

/** Refuses an expiration that is already over: a flow would expire the moment it starts. */
export function requireFutureExpiration(w: WorkflowSettings, now: Date, timeZone: string, field: string): void {
  if (w.expiration_date && parseExpiration(w.expiration_date, timeZone).getTime() <= now.getTime()) {
    throw invalid(`${field}.expiration_date`, `${w.expiration_date} is already past`);
  }
}

export function parseExpiration(value: string, timeZone: string): Date {
  const dmy = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value);
  if (dmy) {
    return endOfLocalDay(Number(dmy[3]), Number(dmy[2]), Number(dmy[1]), timeZone);
  }
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (dateOnly) {
    return endOfLocalDay(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3]), timeZone);
  }
  if (/(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    return new Date(value);
  }
  // A local date-time: read it as UTC, then move it by the zone's offset at that moment.
  const asUtc = new Date(`${value.replace(' ', 'T')}Z`);
  return new Date(asUtc.getTime() - zoneOffsetMs(asUtc, timeZone));
}

/** The last millisecond of day y-m-d in `timeZone`: the next local midnight, minus one. */
function endOfLocalDay(y: number, m: number, d: number, timeZone: string): Date {
  const nextMidnightAsUtc = Date.UTC(y, m - 1, d + 1);
  // The offset can differ across a daylight-saving change; a second pass settles it.
  let t = nextMidnightAsUtc - zoneOffsetMs(new Date(nextMidnightAsUtc), timeZone);
  t = nextMidnightAsUtc - zoneOffsetMs(new Date(t), timeZone);
  return new Date(t - 1);
}

/** How far `timeZone`'s wall clock is ahead of UTC at instant `at`, in ms. */
export function zoneOffsetMs(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

export function daysMs(days: number): number {
  return days * DAY_MS;
}
