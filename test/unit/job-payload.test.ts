// The payload schemas of the jobs, as the handlers apply them: a payload off its schema is dropped
// with a log, never retried.
import type { JobHelpers } from 'graphile-worker';
import { describe, expect, it } from 'vitest';
import { payloadProblem, payloadTask } from '../../src/jobs/job-payload.js';
import { DELIVER_WEBHOOK } from '../../src/jobs/payloads/deliver-webhook.js';
import { WORKFLOW_EXPIRE } from '../../src/jobs/payloads/workflow-expire.js';
import { WORKFLOW_REMIND } from '../../src/jobs/payloads/workflow-remind.js';

function fakeHelpers(): { helpers: JobHelpers; errors: string[] } {
  const errors: string[] = [];
  const logger = { error: (m: string) => errors.push(m), warn: () => {}, info: () => {}, debug: () => {} };
  return { helpers: { logger, job: { id: '42', attempts: 1 } } as unknown as JobHelpers, errors };
}

describe('job payloads', () => {
  it('hands a payload matching its schema to the handler', async () => {
    const seen: unknown[] = [];
    const task = payloadTask(DELIVER_WEBHOOK, async (p) => {
      seen.push(p);
    });
    const { helpers, errors } = fakeHelpers();
    await task({ notificationId: 'n1', target: 'account' }, helpers);
    expect(seen).toEqual([{ notificationId: 'n1', target: 'account' }]);
    expect(errors).toEqual([]);
  });

  it('drops a malformed payload with a log naming the task, the job and what is wrong, without throwing', async () => {
    let ran = false;
    const task = payloadTask(WORKFLOW_EXPIRE, async () => {
      ran = true;
    });
    const { helpers, errors } = fakeHelpers();
    await expect(task({ scope: 'set' }, helpers)).resolves.toBeUndefined();
    await expect(task(null, helpers)).resolves.toBeUndefined();
    expect(ran).toBe(false);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^workflow_expire: malformed payload \(.+\); job 42 dropped$/);
  });

  it('tells the scopes of a reminder apart', () => {
    expect(
      payloadProblem(WORKFLOW_REMIND, { scope: 'document', documentId: '1', signerRowId: '2', dueAt: new Date().toISOString() }),
    ).toBeUndefined();
    expect(payloadProblem(WORKFLOW_REMIND, { scope: 'set', setId: '1', setSignerId: '2' })).toBeUndefined();
    expect(payloadProblem(WORKFLOW_REMIND, { scope: 'set', setId: '1', signerRowId: '2' })).toBeDefined();
    expect(payloadProblem(DELIVER_WEBHOOK, { notificationId: '', target: 'account' })).toMatch(/notificationId/);
  });
});
