// A request to a path that needs no HMAC (the signing API, the public pages): JSON in, the status,
// the body parsed when it is JSON, its text and the headers out.
export interface PublicAnswer {
  status: number;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: any;
  text: string;
  headers: Headers;
}

export async function publicCall(baseUrl: string, method: string, path: string, body?: unknown): Promise<PublicAnswer> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}
