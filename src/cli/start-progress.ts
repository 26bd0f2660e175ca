// What `sello serve` (and `sello worker`) is doing while it starts, a line a step before the step
// runs, on stdout with the rest of what the service prints (the first account's credentials, its
// address). Always, not on a terminal only: a first start takes seconds to tens of seconds (initdb,
// the PKI's RSA keys), and a service manager or `docker compose logs` reading a pipe would
// otherwise show nothing until the service listens. console.log writes to a pipe or a file
// synchronously on Linux, so each line is out before its step starts, never buffered behind it.

export const startProgress = (message: string): void => console.log(message);
