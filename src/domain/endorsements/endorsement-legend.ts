// What an endorsement's signature box says (issue: "its appearance states type, text, endorser,
// endorsee and date"): the type in bold, the text wrapped on up to three lines, the endorsee, then
// the usual legend (the endorser's name, the date and how they were identified). The whole text is
// also the signature's /Reason, so a reader that lists signatures shows it uncut.
import type { EndorsementRow } from '../../store/endorsements-repo.js';

const TYPE: Record<EndorsementRow['type'], { es: string; en: string }> = {
  propiedad: { es: 'Endoso en propiedad', en: 'Endorsement: ownership (propiedad)' },
  procuracion: { es: 'Endoso en procuración', en: 'Endorsement: for collection (procuración)' },
  garantia: { es: 'Endoso en garantía', en: 'Endorsement: as a pledge (garantía)' },
};

const LINE = 64;
const MAX_LINES = 3;

export function endorsementHeading(e: Pick<EndorsementRow, 'type' | 'text' | 'endorsee_name'>, language: 'es' | 'en'): string[] {
  return [TYPE[e.type][language], ...wrap(e.text, LINE, MAX_LINES), `${language === 'en' ? 'To' : 'A favor de'}: ${e.endorsee_name}`];
}

export function endorserLine(name: string, language: 'es' | 'en'): string {
  return `${language === 'en' ? 'Endorser' : 'Endosante'}: ${name}`;
}

export function endorsementReason(e: Pick<EndorsementRow, 'type' | 'text'>, language: 'es' | 'en'): string {
  return `${TYPE[e.type][language]}: ${e.text}`;
}

/** Words onto lines of at most `width` characters; what does not fit in `max` lines ends in "…". */
export function wrap(text: string, width: number, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if ([...next].length <= width) {
      line = next;
      continue;
    }
    if (line) {
      lines.push(line);
    }
    line = [...word].length > width ? `${[...word].slice(0, width - 1).join('')}…` : word;
  }
  if (line) {
    lines.push(line);
  }
  if (lines.length <= max) {
    return lines;
  }
  const kept = lines.slice(0, max);
  kept[max - 1] = `${[...kept[max - 1]].slice(0, width - 1).join('')}…`;
  return kept;
}
