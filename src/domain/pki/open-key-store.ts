// Where the service's keys are, at start: in software (sealed in the database) by default, or in
// the configured PKCS#11 token. A token that cannot be opened stops the start with a message naming
// the setting to fix: the service never falls back to keys in software.
import { readFile } from 'node:fs/promises';
import { ConfigError, PKCS11_VARIABLES, type Pkcs11Config } from '../../config.js';
import { Pkcs11KeyStore, TokenKeyMissingError } from '../../pki/pkcs11-key.js';
import { Pkcs11SetupError, Pkcs11Token } from '../../pki/pkcs11-token.js';
import { type ServiceKeyStore, softwareKeyStore } from '../../pki/service-key.js';

/** A key store, and what to call when the process stops. */
export interface OpenedKeyStore {
  store: ServiceKeyStore;
  close(): void;
}

const v = PKCS11_VARIABLES;

/** The software store, or the token logged in; a token that cannot be opened is a ConfigError naming the setting. */
export async function openServiceKeyStore(settings: Pkcs11Config | undefined): Promise<OpenedKeyStore> {
  if (!settings) {
    return { store: softwareKeyStore, close: () => undefined };
  }
  let pin = settings.pin;
  if (settings.pinPath) {
    try {
      // The file's last line break is the editor's, not the PIN's.
      pin = (await readFile(settings.pinPath, 'utf8')).replace(/\r?\n$/, '');
    } catch (error) {
      throw new ConfigError([
        `${v.pinFile}: the PIN file cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      ]);
    }
  }
  let token: Pkcs11Token;
  try {
    token = await Pkcs11Token.open({
      modulePath: settings.modulePath,
      slot: settings.slot,
      tokenLabel: settings.tokenLabel,
      pin: pin ?? '',
    });
  } catch (error) {
    if (error instanceof Pkcs11SetupError) {
      const setting =
        error.setting === 'module'
          ? v.module
          : error.setting === 'slot'
            ? settings.tokenLabel !== undefined
              ? v.tokenLabel
              : v.slot
            : settings.pinPath
              ? v.pinFile
              : v.pin;
      throw new ConfigError([`${setting}: ${error.message}`]);
    }
    throw new ConfigError([`${v.module}: the token cannot be used (${(error as Error).message})`]);
  }
  return { store: new Pkcs11KeyStore(token, settings.labels), close: () => token.close() };
}

/** A key missing from the token, or not the stored certificate's, as a ConfigError naming its label's setting. */
export function tokenStartError(error: unknown): unknown {
  if (error instanceof TokenKeyMissingError) {
    return new ConfigError([`${v[error.role]}=${error.label}: ${error.message}`]);
  }
  return error;
}
