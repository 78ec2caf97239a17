// The bot-facing Read API v1 (spec 4.4): its own bearer (bot tokens), its own envelope. Agent
// Access tokens do not open it, and bot tokens do not open Agent Access.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MeResponse, ReadApiErrorCode } from '../../contracts/read-api.ts';
import type { App } from '../app.ts';
import type { AthleteState } from '../domain/athlete.ts';
import { refuseReadBody } from './rest.ts';

export async function registerReadApi(server: FastifyInstance, app: App): Promise<void> {
  const refuse = (request: FastifyRequest, reply: FastifyReply, status: number, code: ReadApiErrorCode, message: string) =>
    reply.code(status).send({ error: { code, message, request_id: request.id } });

  /** The athlete whose live bot token the request carries, or null after answering 401. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<AthleteState | null> => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const athleteId = token ? await app.botTokens.athleteFor(token) : null;
    const athlete = athleteId ? await app.athletes.get(athleteId) : null;
    if (!athlete) {
      reply.header('WWW-Authenticate', 'Bearer realm="RepLedger Read API"');
      await refuse(request, reply, 401, 'unauthorized', 'a valid bot token is needed: create one in RepLedger under Bot tokens');
      return null;
    }
    return athlete;
  };

  server.get('/api/v1/me', { onRequest: refuseReadBody }, async (request, reply) => {
    const athlete = await authenticate(request, reply);
    if (!athlete) return reply;
    const body: MeResponse = {
      data: { display_name: athlete.profile.display_name, unit_preference: athlete.profile.unit_preference, timezone: athlete.profile.timezone },
      request_id: request.id,
    };
    return body;
  });
}
