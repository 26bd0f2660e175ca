import { describe, expect, it } from 'vitest';
import { parseWithoutField } from '../../src/http/json-base64-field.js';

const b64 = Buffer.from('%PDF-1.7 a document').toString('base64');

/** What JSON.parse makes of the body: the value with the field as "", and the field's string. */
function parsedWhole(body: string) {
  const value = JSON.parse(body) as Record<string, unknown>;
  const field = value.b64_doc;
  return { value: { ...value, b64_doc: '' }, field };
}

describe('parseWithoutField: a body parsed with its Base64 field left in the bytes', () => {
  it('gives JSON.parse’s value, with "" for the field, and the field’s bytes', () => {
    const bodies = [
      JSON.stringify({ name: 'a.pdf', b64_doc: b64, stickers: [{ page: 0, rect: { lx: 1 } }] }),
      JSON.stringify({ b64_doc: b64 }),
      `  {\n "stickers" : [ {"b64_doc": "inner", "x": "},{\\"b64_doc\\":"} ],\t"b64_doc" :\r\n "${b64}" , "name":"ñandú \\u00e9" }  `,
      JSON.stringify({ note: 'a "b64_doc" inside a string', nested: { b64_doc: 'not this one' }, b64_doc: b64 }),
      JSON.stringify({ b64_doc: `data:application/pdf;base64,${b64}`, list: [[[]], {}] }),
    ];
    for (const body of bodies) {
      const split = parseWithoutField(Buffer.from(body), 'b64_doc');
      expect(split, body).not.toBeNull();
      const whole = parsedWhole(body);
      expect(split!.value).toEqual(whole.value);
      expect(Object.keys(split!.value)).toEqual(Object.keys(whole.value)); // warnings list keys in order
      expect(split!.field.toString('latin1')).toBe(whole.field);
    }
  });

  it('leaves to the ordinary parse what only it reads exactly', () => {
    const bodies = [
      `{"b64_doc":"${b64.slice(0, 8)}\\/${b64.slice(8)}"}`, // an escape ("\/", as some encoders write "/")
      `{"b64_doc":"${b64.slice(0, 8)}\\n${b64.slice(8)}"}`,
      `{"b64_doc":"${b64}ñ"}`, // not ASCII
      `{"b64\\u005fdoc":"${b64}"}`, // the key written with an escape
      `{"b64_doc":"x","b64\\u005fdoc":"${b64}"}`,
      `{"b64_doc":"${b64}","b64_doc":"${b64}"}`, // twice: JSON.parse keeps the last
      '{"b64_doc":12}',
      '{"b64_doc":null}',
      '{"name":"x"}',
      `["b64_doc","${b64}"]`,
      `\ufeff{"b64_doc":"${b64}"}`,
      `{"nested":{"b64_doc":"${b64}"}}`,
    ];
    for (const body of bodies) {
      expect(parseWithoutField(Buffer.from(body), 'b64_doc'), body).toBeNull();
    }
  });

  it('throws where JSON.parse of the whole body throws', () => {
    const bodies = [
      `{"b64_doc":"${b64}",}`,
      `{"b64_doc":"${b64}"`,
      `{"b64_doc":"${b64}" "name":"x"}`,
      `{"b64_doc":"${b64}"}{"a":1}`,
      `{"name":"a\tb","b64_doc":"${b64}"}`, // a raw control character elsewhere
      `{"b64_doc":"${b64}\u0001"}`,
    ];
    for (const body of bodies) {
      expect(() => JSON.parse(body), body).toThrow(SyntaxError);
      let split: unknown = null;
      try {
        split = parseWithoutField(Buffer.from(body), 'b64_doc');
      } catch (err) {
        expect(err, body).toBeInstanceOf(SyntaxError);
        continue;
      }
      // Not split: the ordinary parse then answers it, as before.
      expect(split, body).toBeNull();
    }
  });
});
