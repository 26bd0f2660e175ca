// The operator's brand (SELLO_OPERATOR_*): Sello's by default; a colour too light for white text,
// a logo that is not a PNG or a name with a line break is a problem of the configuration, named by
// its variable, listed with the others.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { testPng } from '../helpers/images.js';

const dir = mkdtempSync(join(tmpdir(), 'sello-operator-brand-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the operator brand', () => {
  it("is Sello's by default, and takes a name, a readable colour and a PNG", () => {
    expect(loadConfig({}).operatorBrand).toEqual({ name: 'Sello', colour: null, logoPng: null });
    const png = join(dir, 'logo.png');
    writeFileSync(png, testPng(20, 10));
    const c = loadConfig({ SELLO_OPERATOR_NAME: ' Firmas Acme ', SELLO_OPERATOR_COLOUR: '#7A1F5C', SELLO_OPERATOR_LOGO: png });
    expect([c.operatorBrand.name, c.operatorBrand.colour, c.operatorBrand.logoPng?.length]).toEqual([
      'Firmas Acme',
      '#7a1f5c',
      testPng(20, 10).length,
    ]);
  });

  it('lists each bad variable by name', () => {
    const gif = join(dir, 'logo.gif');
    writeFileSync(gif, Buffer.from('GIF89a....................................'));
    try {
      loadConfig({ SELLO_OPERATOR_NAME: 'A\nB', SELLO_OPERATOR_COLOUR: '#ffff00', SELLO_OPERATOR_LOGO: gif });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems).toContainEqual(expect.stringMatching(/^SELLO_OPERATOR_NAME: expected 1 to 100 characters/));
      expect(problems).toContainEqual(expect.stringMatching(/^SELLO_OPERATOR_COLOUR: white text on #ffff00 has a contrast of 1\.07:1/));
      expect(problems).toContainEqual(expect.stringMatching(/^SELLO_OPERATOR_LOGO: expected a PNG image/));
    }
  });
});
