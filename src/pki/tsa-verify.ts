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

/** The TimeStampToken inside a TimeStampResp; throws unless the status is granted (0) or grantedWithMods (1). */
export function timeStampTokenFromReply(replyDer: Uint8Array): Buffer {
  let reply: pkijs.TimeStampResp;
  try {
    reply = pkijs.TimeStampResp.fromBER(toArrayBuffer(replyDer));
  } catch {
    return fail('the reply is not a DER TimeStampResp');
  }
  const status = reply.status.status as number;
  if ((status !== 0 && status !== 1) || !reply.timeStampToken) {
    const text = reply.status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    return fail(`the TSA did not grant the request: status ${status}${text ? ` (${text})` : ''}`);
  }
  // The token's own bytes, not a re-encoding: its signature must be checked on what the TSA sent.
  const outer = asn1js.fromBER(toArrayBuffer(replyDer)).result as asn1js.Sequence;
  return Buffer.from(outer.valueBlock.value[1].valueBeforeDecodeView);
}

/** Verifies a TimeStampResp: status granted, then the token inside (verifyTimeStampToken). */
export async function verifyTimeStampReply(replyDer: Uint8Array, options: VerifyTimeStampOptions): Promise<VerifiedTimeStamp> {
  return verifyTimeStampToken(timeStampTokenFromReply(replyDer), options);
}
