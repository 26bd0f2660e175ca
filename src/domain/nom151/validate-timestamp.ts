// POST /api/timestamp/validate {hash | file, timestamp}: whether a stamp is genuine and covers the
// data, and if not, why (check-token.ts). The data is given as its SHA-256 or as the file itself.
import { createHash } from 'node:crypto';
import { decodeBase64 } from '../base64.js';
import type { Deps } from '../deps.js';
import { invalid } from '../errors.js';
import { timeStampTokenFromReply } from '../../pki/index.js';
import { readTimeStampTokenInfo } from '../../pki/cms/timestamp-token-info.js';
import type { Static } from '@sinclair/typebox';
import type { TimestampValidation, ValidateTimestampBody } from '../../schemas/stamps.js';
import { checkToken } from './check-token.js';
import { parseSha256 } from './parse-hash.js';

/** Tokens are a few kilobytes; a PSC's with its whole chain stays well under this. */
const MAX_TOKEN_BYTES = 64 * 1024;

export async function validateTimestamp(deps: Deps, opts: { body: Static<typeof ValidateTimestampBody> }): Promise<TimestampValidation> {
  const b = opts.body;
  if ((b.hash === undefined) === (b.file === undefined)) {
    throw invalid('hash', 'give either hash (the SHA-256 of the data) or file (the data in Base64), not both');
  }
  const hash =
    b.hash !== undefined
      ? parseSha256(b.hash, 'hash')
      : createHash('sha256')
          .update(decodeBase64(b.file!, { field: 'file', maxBytes: deps.config.limits.documentBytes }))
          .digest();
  const given = decodeBase64(b.timestamp, { field: 'timestamp', maxBytes: MAX_TOKEN_BYTES });
  return { ...(await checkToken(deps, tokenOf(given), hash)), hash: hash.toString('hex') };
}

/** The token itself; a whole TimeStampResp (what `openssl ts -reply` writes) is accepted too. */
function tokenOf(given: Buffer): Buffer {
  if (readTimeStampTokenInfo(given)) {
    return given;
  }
  try {
    return timeStampTokenFromReply(given);
  } catch {
    return given; // judged, and reported, as not well-formed
  }
}
