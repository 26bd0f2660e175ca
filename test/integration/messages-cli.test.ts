// `sello messages list`: the operator's view of SMS and WhatsApp messages, here the outbox of a
// service with no provider configured.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { parseMessagesCommand, runMessagesCommand } from '../../src/cli/messages.js';
import { type JobRunner, jobRunner } from '../helpers/jobs.js';
import { A4, makePdf } from '../helpers/pdfs.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

let s: TestServer;
let jobs: JobRunner;
beforeAll(async () => {
  s = await startTestServer();
  jobs = jobRunner(s.connectionString, s.deps);
});
afterAll(async () => {
  await jobs?.close();
  await s?.close();
});

async function printed(cmd: { json: boolean; limit: number }): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  try {
    await runMessagesCommand(s.deps, cmd);
  } finally {
    spy.mockRestore();
  }
  return lines.join('\n');
}

describe('sello messages list', () => {
  it('lists the invitation an SMS signer got, newest first, with its link, in text and JSON', async () => {
    const doc = await s.client.createDocument({
      b64_doc: (await makePdf([A4])).toString('base64'),
      name: 'Pagaré',
      stickers: [{ authority: 'SMS', data: '+5215599887766', page: 0, rect: { lx: 60, ly: 60, tx: 260, ty: 130 } }],
      workflow: {},
    });
    await jobs.runDue();
    const json = JSON.parse(await printed(parseMessagesCommand(['list', '--json', '--limit', '1'])));
    expect(json).toEqual([
      expect.objectContaining({ channel: 'sms', kind: 'invitation', to: '+5215599887766', status: 'outbox', error: null }),
    ]);
    expect(json[0].text).toContain(doc.stickers[0].signer_url);
    const text = await printed(parseMessagesCommand(['list']));
    expect(text).toMatch(/outbox\s+sms\s+invitation\s+\+5215599887766/);
  });

  it('names what is wrong with the command', () => {
    expect(() => parseMessagesCommand(['show'])).toThrow(UsageError);
    expect(() => parseMessagesCommand(['list', '--limit', '0'])).toThrow(/--limit/);
  });
});
