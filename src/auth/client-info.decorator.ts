import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ClientInfo } from './sign-in-sessions/sign-in-sessions.repository.js';

/** Where the request comes from, as sessions and the audit record it (the address as TRUST_PROXY allows). */
export const Client = createParamDecorator((_data: unknown, context: ExecutionContext): ClientInfo => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const userAgent = request.headers['user-agent'];
  return { address: request.ip ?? null, userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null };
});
