/** The same server's URL for another database (the query, such as a socket's host, is kept). */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.href;
}
