// Dates for tests, always relative to the moment the test runs: a literal date becomes a time bomb
// the day the calendar passes it (a workflow expiration in the past, a clock set before the
// certificates of the service's PKI were made).

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The first whole UTC hour after `from` (default: now), so minute arithmetic in tests is exact. */
export function nextWholeHour(from = Date.now()): number {
  return Math.floor(from / HOUR) * HOUR + HOUR;
}

/** `dd/mm/yyyy` of `at` in `timeZone` (default UTC), the form workflows take for expiration_date. */
export function ddmmyyyy(at: Date | number, timeZone = 'UTC'): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, day: '2-digit', month: '2-digit', year: 'numeric' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('day')}/${part('month')}/${part('year')}`;
}
