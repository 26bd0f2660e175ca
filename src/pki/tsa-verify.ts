// Verification of RFC 3161 time-stamp replies (TimeStampResp, §2.4.2): the status, then the token
// inside it, which cms/timestamp-token.ts checks as every other token of the service is checked.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { type VerifiedTimeStamp, type VerifyTimeStampOptions, verifyTimeStampToken } from './cms/timestamp-token.js';
import { derChildren } from './der-elements.js';
import { PkiError } from './errors.js';
import { toArrayBuffer } from './primitives.js';

function fail(message: string): never {
  throw new PkiError('timestamp_invalid', message);
}

/**
 * The TimeStampResp's two fields (RFC 3161 §2.4.2: SEQUENCE { status PKIStatusInfo, timeStampToken
 * ContentInfo OPTIONAL }): a DER reply is split by its headers (der-elements.ts), so only the status
 * is parsed here; any other is parsed whole by asn1js. pkijs's TimeStampResp schema is not used: it
 * reads the whole reply, certificates included, only for the status to be taken from it.
 */
function replyFields(replyDer: Uint8Array): { statusBlock?: asn1js.BaseBlock; token?: Buffer; count: number } {
  const fields = derChildren(replyDer);
  if (fields && replyDer[0] === 0x30) {
    const [status, token] = fields;
    const statusBlock = status ? asn1js.fromBER(replyDer.subarray(status.start, status.end)) : undefined;
    return {
      statusBlock: statusBlock && statusBlock.offset !== -1 ? statusBlock.result : undefined,
      token: token && token.tag === 0x30 ? Buffer.from(replyDer.subarray(token.start, token.end)) : undefined,
      count: token && token.tag !== 0x30 ? -1 : fields.length,
    };
  }
  const parsed = asn1js.fromBER(toArrayBuffer(replyDer));
  const blocks = parsed.offset !== -1 && parsed.result instanceof asn1js.Sequence ? parsed.result.valueBlock.value : [];
  const [statusBlock, tokenBlock] = blocks;
  // The token's own bytes, not a re-encoding: its signature must be checked on what the TSA sent.
  const token = tokenBlock instanceof asn1js.Sequence ? Buffer.from(tokenBlock.valueBeforeDecodeView) : undefined;
  return { statusBlock, token, count: tokenBlock && !token ? -1 : blocks.length };
}

/** The TimeStampToken inside a TimeStampResp; throws unless the status is granted (0) or grantedWithMods (1). */
export function timeStampTokenFromReply(replyDer: Uint8Array): Buffer {
  const { statusBlock, token, count } = replyFields(replyDer);
  let status: pkijs.PKIStatusInfo;
  try {
    if (count < 1 || count > 2) {
      throw new Error('not a TimeStampResp');
    }
    status = new pkijs.PKIStatusInfo({ schema: statusBlock });
  } catch {
    return fail('the reply is not a DER TimeStampResp');
  }
  const code = status.status as number;
  if ((code !== 0 && code !== 1) || !token) {
    const text = status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    return fail(`the TSA did not grant the request: status ${code}${text ? ` (${text})` : ''}`);
  }
  return token;
}

/** Verifies a TimeStampResp: status granted, then the token inside (verifyTimeStampToken). */
export async function verifyTimeStampReply(replyDer: Uint8Array, options: VerifyTimeStampOptions): Promise<VerifiedTimeStamp> {
  return verifyTimeStampToken(timeStampTokenFromReply(replyDer), options);
}
