/** The provider named in the events, the history and the report when the built-in checks decide a review. */
export const AUTOMATIC_PROVIDER = 'automatic_checks';
