// Verification of RFC 3161 time-stamp replies (TimeStampResp, §2.4.2): the status, then the token
// inside it, which cms/timestamp-token.ts checks as every other token of the service is checked.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type VerifiedTimeStamp, type VerifyTimeStampOptions, verifyTimeStampToken } from './cms/timestamp-token.js';
import { PkiError } from './errors.js';
import { toArrayBuffer } from './primitives.js';

function fail(message: string): never {
  throw new PkiError('timestamp_invalid', message);
}

/**
 * The TimeStampResp read once (RFC 3161 §2.4.2: SEQUENCE { status PKIStatusInfo, timeStampToken
 * ContentInfo OPTIONAL }): the status through pkijs, the token as the bytes the TSA sent (its
 * signature must be checked on those, not on a re-encoding) and as already parsed, so the token's
 * check does not read it a second time. pkijs's TimeStampResp schema is not used: it reads the whole
 * reply, certificates included, only for the status to be taken from it.
 */
function readReply(replyDer: Uint8Array): { token: Buffer; tokenBlock: asn1js.Sequence } {
  const parsed = asn1js.fromBER(toArrayBuffer(replyDer));
  const fields = parsed.offset !== -1 && parsed.result instanceof asn1js.Sequence ? parsed.result.valueBlock.value : [];
  const [statusBlock, tokenBlock] = fields;
  let status: pkijs.PKIStatusInfo;
  try {
    if (fields.length < 1 || fields.length > 2 || (tokenBlock !== undefined && !(tokenBlock instanceof asn1js.Sequence))) {
      throw new Error('not a TimeStampResp');
    }
    status = new pkijs.PKIStatusInfo({ schema: statusBlock });
  } catch {
    return fail('the reply is not a DER TimeStampResp');
  }
  const code = status.status as number;
  if ((code !== 0 && code !== 1) || !tokenBlock) {
    const text = status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    return fail(`the TSA did not grant the request: status ${code}${text ? ` (${text})` : ''}`);
  }
  return { token: Buffer.from(tokenBlock.valueBeforeDecodeView), tokenBlock: tokenBlock as asn1js.Sequence };
}

/** The TimeStampToken inside a TimeStampResp; throws unless the status is granted (0) or grantedWithMods (1). */
export function timeStampTokenFromReply(replyDer: Uint8Array): Buffer {
  return readReply(replyDer).token;
}

/** Verifies a TimeStampResp: status granted, then the token inside (verifyTimeStampToken). */
export async function verifyTimeStampReply(replyDer: Uint8Array, options: VerifyTimeStampOptions): Promise<VerifiedTimeStamp> {
  const { token, tokenBlock } = readReply(replyDer);
  return verifyTimeStampToken(token, options, tokenBlock);
}
