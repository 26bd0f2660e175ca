import { SelloApiError } from '../../src/client/index.js';

/** The API error a request fails with; fails the test when the request succeeds or fails otherwise. */
export async function apiError(p: Promise<unknown>): Promise<SelloApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SelloApiError) {
      return err;
    }
    throw err;
  }
  throw new Error('expected the request to fail');
}
