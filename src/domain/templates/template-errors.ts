// Turns what a template engine reports into API errors.
import { AppError } from '../errors.js';
import { TemplateError } from '../../render/types.js';

export async function engineCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof TemplateError)) {
      throw err;
    }
    switch (err.problem) {
      case 'INVALID_TEMPLATE':
        throw new AppError('TEMPLATE_INVALID', err.message, err.details);
      case 'INVALID_VALUE':
        throw new AppError('INVALID_FIELD_VALUE', err.message, err.details);
      case 'RENDER_TIMEOUT':
        throw new AppError('RENDER_TIMEOUT', `${err.message}; try again, or simplify the template`, err.details);
      case 'TOO_COMPLEX':
        throw new AppError('PDF_TOO_COMPLEX', err.message, err.details);
      case 'RENDERER_UNAVAILABLE':
        // The details (a renderer's own error output) are for the operator's logs, not the client.
        throw new AppError('RENDERER_UNAVAILABLE', err.message, undefined, err);
    }
  }
}
