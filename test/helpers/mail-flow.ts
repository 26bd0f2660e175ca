// A server whose emails are really sent, to an SMTP catcher, with the job runner that sends them
// and moves flows: what every test of invitations, reminders and conclusions starts from.
import { createSmtpTransport } from '../../src/notify/email-transport.js';
import { releaseScheduledJobs, type MovableClock } from './flow-clock.js';
import { jobRunner, type JobRunner } from './jobs.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';
import { startSmtpCatcher, type CaughtMail, type SmtpCatcher } from './smtp-catcher.js';

export interface MailFlow {
  s: TestServer;
  smtp: SmtpCatcher;
  jobs: JobRunner;
  /** Moves the clock, releases the scheduled jobs that fell due by it, and runs them and their emails. */
  passTime(ms: number): Promise<void>;
  /** Stops the server as a crash would and starts it again on the same data (s and jobs change). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startMailFlow(opts: TestServerOptions & { clock?: MovableClock } = {}): Promise<MailFlow> {
  const smtp = await startSmtpCatcher();
  const connect = (s: TestServer) => {
    s.deps.mail = { transport: createSmtpTransport(smtp.url), from: 'Sello <no-reply@sello.test>' };
    return jobRunner(s.connectionString, s.deps);
  };
  const s = await startTestServer(opts);
  const flow: MailFlow = {
    s,
    smtp,
    jobs: connect(s),
    async passTime(ms) {
      if (!opts.clock) {
        throw new Error('passTime needs a movable clock');
      }
      opts.clock.advance(ms);
      await releaseScheduledJobs(flow.s.deps.db, opts.clock);
      // Twice: a job the first round runs may queue an email the second round sends.
      await flow.jobs.runDue();
      await flow.jobs.runDue();
    },
    async restart() {
      await flow.jobs.close();
      flow.s = await flow.s.restart();
      flow.jobs = connect(flow.s);
    },
    async close() {
      await flow.jobs.close();
      await flow.s.close();
      await smtp.close();
    },
  };
  return flow;
}

/** What an email of the service is, from its subject (Spanish or English). */
export function mailKind(m: CaughtMail): 'invitation' | 'reminder' | 'conclusion' {
  if (/^Recordatorio|^Reminder/.test(m.subject)) {
    return 'reminder';
  }
  return /^Documento firmado|^Document signed/.test(m.subject) ? 'conclusion' : 'invitation';
}
