import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';

/**
 * Errors Fastify or Node answer before a route is known, in our general envelope instead of
 * Fastify's own `{"error":"Bad Request",…}` (issue 13, low): a URL that cannot be decoded, and
 * connection-level errors (malformed HTTP, headers too large, a request not received in time).
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket, render: (error: GatewayError) => unknown): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const gatewayError =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new GatewayError('GW_REQUEST_TIMEOUT', 'The request was not received in time (GATEWAY_REQUEST_TIMEOUT_MS)')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new GatewayError('GW_HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts')
        : new GatewayError('GW_REQ_INVALID_PARAM', 'The request is not valid HTTP');
  const body = JSON.stringify(render(gatewayError));
  const status = gatewayError.status;
  // As Node does on its own: answer unless a response already started on this connection.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

/** A URL Fastify's router cannot decode (`%zz`): a 400 in the family's envelope. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply, send: (request: FastifyRequest, reply: FastifyReply, error: GatewayError) => unknown): void {
  send(request, reply, new GatewayError('GW_REQ_INVALID_PARAM', error.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid (a percent sign must start an escape such as %20)' : error.message));
}
