// How long the panel's credentials live (docs/operations.md "Account panel"). Fixed values: short
// enough that a forgotten browser or a forwarded email is not a standing key to the account.

/** A sign-in link works once, within this time of being sent. */
export const SIGN_IN_LINK_MINUTES = 15;
/** A session ends after this long without a request. */
export const SESSION_IDLE_MINUTES = 30;
/** A session ends this long after sign-in, however active. */
export const SESSION_ABSOLUTE_HOURS = 12;
/** Sign-in links a person may ask for on the sign-in page, per address and per client address. */
export const LINK_REQUESTS_PER_ADDRESS = 3;
export const LINK_REQUESTS_PER_IP = 10;
/** …within this window. */
export const LINK_REQUEST_WINDOW_MINUTES = 15;

/**
 * The least time an answer to "send me a link" takes: a known address costs a link and an email
 * row (a few milliseconds), an unknown one nothing, and the difference must not tell them apart.
 */
export const LINK_REQUEST_FLOOR_MS = 250;

/** The name of the session cookie (its Path is /panel). */
export const SESSION_COOKIE = 'sello_panel';
