// Keeps a process's PKI in memory the stored one when another process changes it: a responder
// certificate renewed by the worker's daily job, an operator's CA stored by a process started with
// it. Without this, a process would go on answering OCSP with the certificate it loaded for up to
// an hour after a renewal (pki-responses.ts), and on issuing under a replaced CA until restarted.
import { listenForChanges, type ChangeListener } from '../../store/change-listener.js';
import type { PkiResponder } from './pki-responses.js';

export function followPkiChanges(opts: {
  connectionString: string;
  responder: PkiResponder;
  warn: (message: string) => void;
}): ChangeListener {
  const takeUp = () => {
    void opts.responder.takeUpStored().then(
      (changed) => {
        if (changed) {
          opts.warn('took up the PKI material another process stored');
        }
      },
      (err: unknown) => opts.warn(`the stored PKI material could not be taken up: ${(err as Error).message}`),
    );
  };
  let failing = false;
  return listenForChanges({
    connectionString: opts.connectionString,
    onChange: (what) => {
      if (what === 'pki_material') {
        takeUp();
      }
    },
    recheck: () => {
      failing = false;
      takeUp();
    },
    onError: (err) => {
      if (!failing) {
        opts.warn(`not hearing of PKI changes from other processes until the database answers again: ${(err as Error).message}`);
      }
      failing = true;
    },
  });
}
