// Whether the service's keys can sign, for GET /healthz: with the keys in a PKCS#11 token, a token
// that is gone, logged out or missing a key makes this process unable to sign (it never signs
// with another key), so it is not ready and says which key.
import type { Deps } from '../deps.js';
import type { ServiceKeyHealth, ServiceKeyRole } from '../../pki/service-key.js';

/** The keys that cannot sign now, with why; empty when all can (always, for keys in software). */
export async function unavailableServiceKeys(deps: Pick<Deps, 'pki'>): Promise<ServiceKeyHealth[]> {
  const { keyStore, pki } = deps.pki;
  if (!keyStore.health) {
    return [];
  }
  // The root key signs only the root CRL; it is checked when the service holds it.
  const roles: ServiceKeyRole[] = pki.root.key ? ['root', 'issuing', 'tsa', 'ocsp'] : ['issuing', 'tsa', 'ocsp'];
  return (await keyStore.health(roles)).filter((key) => !key.available);
}
