import { defineOperation, type Operation } from './operation.ts';

const PREFIX = '/api/v1/admin';

/** An admin route's entry: under the admin prefix, behind the admin token or the dashboard's operator session (401 without either). */
export function adminOperation(
  method: Operation['method'],
  path: string,
  operationId: string,
  summary: string,
  rest: Pick<Operation, 'responses'> &
    Partial<Pick<Operation, 'params' | 'query' | 'body' | 'bodyOptional' | 'errors' | 'description'>>,
): Operation {
  // A path id that is not a positive int is a 400 `invalid_request`.
  // 429 after repeated failed authentications from one client; 403 for a session write without its CSRF token.
  const errors: Operation['errors'] = [
    'unauthorized',
    'forbidden',
    'rate_limited',
    ...(path.includes(':') ? ['invalid_request' as const] : []),
    ...(rest.errors ?? []),
  ];
  return defineOperation({
    method,
    path: `${PREFIX}${path}`,
    operationId,
    summary,
    tag: 'Admin',
    security: ['adminToken', 'operatorSession'],
    ...rest,
    errors,
  });
}
