// Whether the name in a document's machine-readable zone is the signer's name as the sender wrote
// it. The zone writes names in capitals A–Z without accents (ICAO 9303 transliteration: Ñ → N,
// Á → A), surnames first, and may cut a long name short; senders write "Ana García" or "GARCÍA
// LÓPEZ ANA MARÍA", often leaving out a second surname or a middle name. So both are brought to
// the same words (accents, case and punctuation removed), and the signer's name matches when every
// word of it is in the zone's name, in any order, with at least one surname and one given name.

export interface NameComparison {
  result: 'match' | 'mismatch';
  /** The signer's words not found in the zone's name. */
  missing: string[];
}

/** Words of a name: accents removed, upper case, A–Z only. */
export function nameWords(name: string): string[] {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'SS')
    .replace(/Æ/gi, 'AE')
    .replace(/Ø/gi, 'O')
    .toUpperCase()
    .replace(/[^A-Z]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
}

export function compareNames(signerName: string, zone: { surnames: string; givenNames: string; truncated: boolean }): NameComparison {
  const signer = nameWords(signerName);
  const surnames = nameWords(zone.surnames);
  const given = nameWords(zone.givenNames);
  const all = [...surnames, ...given];
  // A name cut at the zone's end: its last word may be the start of the signer's.
  const last = zone.truncated ? all[all.length - 1] : undefined;
  const found = (w: string, pool: string[]) => pool.includes(w) || (last !== undefined && pool.includes(last) && w.startsWith(last));
  const missing = signer.filter((w) => !found(w, all));
  const ok = signer.length >= 2 && missing.length === 0 && signer.some((w) => found(w, surnames)) && signer.some((w) => found(w, given));
  return { result: ok ? 'match' : 'mismatch', missing };
}
