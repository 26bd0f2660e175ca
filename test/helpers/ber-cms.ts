// A DER CMS re-encoded in BER, the way Java's PKCS#7 and other signing products write theirs:
// every layer of the ContentInfo, SignedData and SignerInfo with indefinite lengths (X.690
// §8.1.3.6), and OCTET STRINGs (the encapsulated content, the messageDigest attribute, the
// signature value) split into constructed pieces (§8.7.3). The certificates and the signer
// identifier are kept as written, as those writers keep them. An embedded time-stamp token is
// re-encoded the same way. Written with asn1js alone, independent of the code under test.
import * as asn1js from 'asn1js';

const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNATURE_TIME_STAMP = '1.2.840.113549.1.9.16.2.14';
const EOC = Buffer.from([0, 0]);

const raw = (b: asn1js.BaseBlock) => Buffer.from(b.valueBeforeDecodeView);
const kids = (b: asn1js.BaseBlock) => (b as asn1js.Constructed).valueBlock.value as asn1js.BaseBlock[];
const tagOf = (b: asn1js.BaseBlock) => Buffer.from(b.idBlock.toBER(false));
const oidOf = (b: asn1js.BaseBlock | undefined) => (b instanceof asn1js.ObjectIdentifier ? b.valueBlock.toString() : '');

/** A constructed element with an indefinite length: tag, 0x80, the parts, end-of-contents. */
const indefinite = (tag: Buffer, parts: Buffer[]) => Buffer.concat([tag, Buffer.of(0x80), ...parts, EOC]);

/** An OCTET STRING as constructed pieces of at most `size` octets, indefinite length. */
function octetPieces(data: Uint8Array, size: number): Buffer {
  const pieces: Buffer[] = [];
  for (let at = 0; at < data.length || pieces.length === 0; at += size) {
    const piece = data.subarray(at, at + size);
    pieces.push(Buffer.concat([Buffer.of(0x04), lengthOf(piece.length), piece]));
  }
  return indefinite(Buffer.of(0x24), pieces);
}

function lengthOf(n: number): Buffer {
  if (n < 0x80) {
    return Buffer.of(n);
  }
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) {
    out.unshift(v % 256);
  }
  return Buffer.from([0x80 | out.length, ...out]);
}

const octets = (b: asn1js.BaseBlock) => new Uint8Array((b as asn1js.OctetString).getValue());

/** Attribute ::= SEQUENCE { attrType, attrValues SET OF }, with `value` re-encoding each value. */
function attribute(attr: asn1js.BaseBlock, value: (type: string, v: asn1js.BaseBlock) => Buffer): Buffer {
  const [type, values] = kids(attr);
  return indefinite(tagOf(attr), [
    raw(type),
    indefinite(
      tagOf(values),
      kids(values).map((v) => value(oidOf(type), v)),
    ),
  ]);
}

function signerInfo(info: asn1js.BaseBlock): Buffer {
  const parts = kids(info).map((field) => {
    if (field.idBlock.tagClass === 3 && field.idBlock.tagNumber === 0) {
      // signedAttrs [0]: the signer signed their DER; here they travel in BER.
      return indefinite(
        tagOf(field),
        kids(field).map((a) => attribute(a, (type, v) => (type === MESSAGE_DIGEST ? octetPieces(octets(v), 7) : raw(v)))),
      );
    }
    if (field.idBlock.tagClass === 3 && field.idBlock.tagNumber === 1) {
      return indefinite(
        tagOf(field),
        kids(field).map((a) => attribute(a, (type, v) => (type === SIGNATURE_TIME_STAMP ? berCms(raw(v)) : raw(v)))),
      );
    }
    if (field instanceof asn1js.OctetString) {
      return octetPieces(octets(field), 100); // the signature value
    }
    return raw(field);
  });
  return indefinite(tagOf(info), parts);
}

/** `der` (a ContentInfo of SignedData, trailing zeros allowed) re-encoded in BER as described above. */
export function berCms(der: Uint8Array): Buffer {
  const parsed = asn1js.fromBER(new Uint8Array(der).slice().buffer);
  const contentInfo = parsed.result;
  const [type, explicit] = kids(contentInfo);
  const signedData = kids(explicit)[0];
  const fields = kids(signedData).map((field, i) => {
    if (i === 1) {
      return indefinite(tagOf(field), kids(field).map(raw)); // digestAlgorithms SET
    }
    if (i === 2) {
      // encapContentInfo: the eContent, when there is one, as pieces.
      const [eType, eExplicit] = kids(field);
      const inner = eExplicit ? [indefinite(tagOf(eExplicit), [octetPieces(octets(kids(eExplicit)[0]), 64)])] : [];
      return indefinite(tagOf(field), [raw(eType), ...inner]);
    }
    if (field.idBlock.tagClass === 3) {
      return indefinite(tagOf(field), kids(field).map(raw)); // certificates [0], crls [1]: each as written
    }
    if (field instanceof asn1js.Set) {
      return indefinite(tagOf(field), kids(field).map(signerInfo));
    }
    return raw(field); // version
  });
  return indefinite(tagOf(contentInfo), [raw(type), indefinite(tagOf(explicit), [indefinite(tagOf(signedData), fields)])]);
}
