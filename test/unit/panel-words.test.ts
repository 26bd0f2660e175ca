// The panel's words come in areas (web/src/panel/words/*.ts) spread into one dictionary per
// language: a key defined in two areas would silently take the later area's words on every page.
// (That each area's English has the keys of its Spanish, the compiler checks.)
import { describe, expect, it } from 'vitest';
import { accountEs } from '../../web/src/panel/words/account.js';
import { commonEs } from '../../web/src/panel/words/common.js';
import { AUTHORITIES } from '../../src/domain/documents/authorities.js';
import { documentsEn, documentsEs } from '../../web/src/panel/words/documents.js';
import { prepareEs } from '../../web/src/panel/words/prepare.js';
import { webhooksEs } from '../../web/src/panel/words/webhooks.js';
import { bulkEs } from '../../web/src/panel/words/bulk.js';

const areas = {
  common: commonEs,
  documents: documentsEs,
  webhooks: webhooksEs,
  account: accountEs,
  bulk: bulkEs,
  prepare: prepareEs,
};

describe("the panel's words", () => {
  it('each key belongs to one area only', () => {
    const owners = new Map<string, string[]>();
    for (const [area, es] of Object.entries(areas)) {
      for (const key of Object.keys(es)) {
        owners.set(key, [...(owners.get(key) ?? []), area]);
      }
    }
    expect([...owners].filter(([, of]) => of.length > 1)).toEqual([]);
  });

  it('every authority the signer correction offers has its label in both languages', () => {
    for (const words of [documentsEs, documentsEn]) {
      expect(AUTHORITIES.filter((a) => !words.authorities[a])).toEqual([]);
    }
  });
});
