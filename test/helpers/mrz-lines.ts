// Machine-readable zones for test documents, written by the rules of ICAO 9303 (check digits with
// weights 7, 3, 1; `<` as filler), so a test can print a correct zone on a synthetic card, or one
// with a wrong check digit.

const value = (c: string) => (c === '<' ? 0 : /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 55);

/** ICAO 9303 part 3, 4.9: the check digit of a field. */
export function checkDigit(field: string): string {
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    sum += value(field[i]) * [7, 3, 1][i % 3];
  }
  return String(sum % 10);
}

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const nameField = (surnames: string, given: string, n: number) =>
  pad(`${surnames.toUpperCase().replace(/[ -]/g, '<')}<<${given.toUpperCase().replace(/[ -]/g, '<')}`, n);

export interface MrzPerson {
  /** Surnames and given names as printed in the zone: A–Z only, spaces become `<`. */
  surnames: string;
  given: string;
  /** yymmdd */
  birth: string;
  /** yymmdd */
  expiry: string;
  sex: 'M' | 'F' | '<';
  documentNumber: string;
  country?: string;
}

/** An identity card's zone: three lines of 30 (TD1). */
export function td1(p: MrzPerson): string[] {
  const country = p.country ?? 'MEX';
  const number = pad(p.documentNumber, 9);
  const line1 = pad(`I<${country}${number}${checkDigit(number)}`, 30);
  const line2Head = `${p.birth}${checkDigit(p.birth)}${p.sex}${p.expiry}${checkDigit(p.expiry)}${country}`;
  const line2Body = pad(line2Head, 29);
  const composite = line1.slice(5, 30) + line2Body.slice(0, 7) + line2Body.slice(8, 15) + line2Body.slice(18, 29);
  return [line1, line2Body + checkDigit(composite), nameField(p.surnames, p.given, 30)];
}

/** A passport's zone: two lines of 44 (TD3). */
export function td3(p: MrzPerson): string[] {
  const country = p.country ?? 'MEX';
  const number = pad(p.documentNumber, 9);
  const personal = '<'.repeat(14);
  const body = `${number}${checkDigit(number)}${country}${p.birth}${checkDigit(p.birth)}${p.sex}${p.expiry}${checkDigit(p.expiry)}${personal}${checkDigit(personal)}`;
  const composite = body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 43);
  return [`P<${country}${nameField(p.surnames, p.given, 39)}`, body + checkDigit(composite)];
}
