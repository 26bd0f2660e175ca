// How the service writes its logs: JSON lines for machines (files, collectors, `docker logs`), or,
// on a terminal, readable lines through pino-pretty with one line per request, so a person running
// `npm start` sees what happens instead of two JSON objects per request.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pinoPretty from 'pino-pretty';
import type { Config } from './config.js';

/** Pretty when asked, or when `auto` and standard output is a terminal (and no stream was given). */
export function prettyLogs(config: Pick<Config, 'logFormat'>, stream?: NodeJS.WritableStream): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && !stream && process.stdout.isTTY === true);
}

/** The destination of pretty lines: a terminal gets colours, a given stream plain text. */
export function prettyStream(stream?: NodeJS.WritableStream) {
  return pinoPretty({
    destination: stream ?? 1,
    colorize: !stream && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    singleLine: true,
    sync: true,
  });
}

/** One line per request, once it is answered, instead of Fastify's two (incoming, completed). */
export class OneLinePerRequest extends LogController {
  constructor(private readonly redactUrl: (url: string) => string) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = `${request.method} ${this.redactUrl(request.url)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms`;
    if (error) {
      reply.log.error({ err: error }, line);
    } else {
      reply.log.info(line);
    }
  }
}
